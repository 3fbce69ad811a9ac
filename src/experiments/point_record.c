/* A measured point as a run record of the results document, and as text. */
#include "experiments/point.h"
#include "facilities/canonical_spec.h"
#include "io/result_traits.h"

#include <math.h>
#include <string.h>

/* The facility's own figures, each with its unit, at the place the first facility to have
 * them (its op samples) wrote them; their names in a list after them, so a reader tells them
 * from the shared ones. */
static void record_own_figures(const struct pb_spec *spec, const struct pb_point_figures *f,
			       struct pb_rset *o)
{
	struct pb_rlist names = {0};
	const struct pb_own_figure *own;
	for (size_t i = 0; (own = pb_spec_own_figure(spec, i)); i++) {
		enum pb_unit unit = PB_UNIT_COUNT;
		pb_unit_parse(own->unit, &unit);
		pb_rset_int(o, own->name, unit, (int64_t)f->own[i]);
		pb_rlist_text(&names, own->name);
	}
	if (names.n) {
		struct pb_rvalue list = {.kind = PB_RV_LIST, .as.list = &names};
		pb_rset_put(o, "facility_figures", &list);
	}
	pb_rlist_clear(&names);
}

static void record_figures(const struct pb_point_request *req, unsigned e,
			   const struct pb_point_figures *f, struct pb_rset *o)
{
	pb_rset_text(o, "facility", req->events[e].spec.text);
	/* a period counts events, or nanoseconds for a time-based facility: "basis" says which */
	pb_rset_int(o, "period", PB_UNIT_NONE, (int64_t)req->events[e].period);
	pb_rset_text(o, "basis", f->basis);
	pb_rset_int(o, "declared_events", PB_UNIT_EVENTS, (int64_t)f->declared);
	pb_rset_real(o, "expected", PB_UNIT_SAMPLES, f->expected);
	pb_rset_int(o, "observed", PB_UNIT_SAMPLES, (int64_t)f->observed);
	pb_rset_int(o, "count", PB_UNIT_EVENTS, (int64_t)f->count);
	pb_rset_real_or_null(o, "accuracy", PB_UNIT_PERCENT, f->accuracy);
	/* the accuracy is symmetric: its direction is said beside it */
	pb_rset_real_or_null(o, "signed_error", PB_UNIT_PERCENT, f->signed_error);
	pb_rset_text(o, "direction", pb_point_direction(f));
	pb_rset_bool(o, "too_few_samples", f->too_few_samples);
	if (f->withheld[0])
		pb_rset_text(o, "accuracy_withheld", f->withheld);
	pb_rset_int(o, "lost", PB_UNIT_SAMPLES, (int64_t)f->lost);
	pb_rset_int(o, "lost_format", PB_UNIT_RECORDS, (int64_t)f->lost_format);
	pb_rset_int(o, "lost_records", PB_UNIT_RECORDS, (int64_t)f->lost_records);
	pb_rset_int(o, "lost_samples", PB_UNIT_SAMPLES, (int64_t)f->lost_samples);
	pb_rset_int(o, "filtered", PB_UNIT_SAMPLES, (int64_t)f->filtered);
	pb_rset_int(o, "dropped", PB_UNIT_RECORDS, (int64_t)f->dropped);
	if (req->events[e].spec.facility->time_based)
		pb_rset_int(o, "missed_ticks", PB_UNIT_TICKS, (int64_t)f->missed);
	pb_rset_int(o, "throttles", PB_UNIT_COUNT, (int64_t)f->throttles);
	pb_rset_int(o, "unthrottles", PB_UNIT_COUNT, (int64_t)f->unthrottles);
	pb_rset_int(o, "time_enabled", PB_UNIT_NS, (int64_t)f->time_enabled);
	pb_rset_int(o, "time_running", PB_UNIT_NS, (int64_t)f->time_running);
	pb_rset_real(o, "running_ratio", PB_UNIT_RATIO,
		     f->time_enabled ? (double)f->time_running / (double)f->time_enabled : 1.0);
	pb_rset_bool(o, "multiplexed", f->time_running < f->time_enabled);
	pb_rset_int(o, "signals", PB_UNIT_SIGNALS, (int64_t)f->signals);
	pb_rset_int(o, "signals_wrong_thread", PB_UNIT_SIGNALS, (int64_t)f->signals_wrong_thread);
	pb_rset_int(o, "user_samples", PB_UNIT_SAMPLES, (int64_t)f->user_samples);
	pb_rset_int(o, "kernel_samples", PB_UNIT_SAMPLES, (int64_t)f->kernel_samples);
	pb_rset_int(o, "kernel_ip_samples", PB_UNIT_SAMPLES, (int64_t)f->kernel_ip_samples);
	/* samples at a level the run excluded (by flag or IP): a misattribution, never hidden */
	pb_rset_int(o, "wrong_level_samples", PB_UNIT_SAMPLES, (int64_t)f->wrong_level_samples);
	pb_rset_int(o, "ring_pages", PB_UNIT_PAGES, f->ring_pages);
	record_own_figures(&req->events[e].spec, f, o);
	if (req->events[e].spec.facility->aux_pages) {
		pb_rset_int(o, "aux_truncated", PB_UNIT_COUNT, (int64_t)f->aux_truncated);
		pb_rset_int(o, "aux_collision", PB_UNIT_COUNT, (int64_t)f->aux_collision);
	}
	/* a precise level the machine could not give is never lowered silently */
	if (f->precise_requested > 0 || f->precise_granted > 0) {
		if (f->precise_requested > 0)
			pb_rset_int(o, "precise_requested", PB_UNIT_NONE, f->precise_requested);
		else
			pb_rset_null(o, "precise_requested", PB_UNIT_NONE);
		pb_rset_int(o, "precise_granted", PB_UNIT_NONE, f->precise_granted);
		pb_rset_bool(o, "precise_lowered", f->precise_requested > f->precise_granted);
	}
	pb_rset_bool(o, "no_samples", f->no_samples);
	pb_rset_bool(o, "silent_zero", f->silent_zero);
	if (f->silent_zero)
		pb_rset_text(o, "silent_zero_note",
			     "a loss: the counter read 0 while on the PMU for its whole enabled time "
			     "(time_running == time_enabled), though the workload declares its events or "
			     "an identical event of this run counted them; the kernel reported nothing, "
			     "so no scaling can reveal it and no accuracy is given");
	if (f->no_samples) {
		char note[160];
		snprintf(note, sizeof note, "%.1f samples expected and none arrived: the facility "
			 "produced nothing, so no accuracy is given", f->expected);
		pb_rset_text(o, "note", note);
	} else if (f->seen_share < 1) {
		char note[240];
		snprintf(note, sizeof note, "the run left out the level where the workload takes "
			 "%.0f %% of its declared events: %.0f %% of them could be seen, and the "
			 "accuracy is the share of all of them kept", 100 * (1 - f->seen_share),
			 100 * f->seen_share);
		pb_rset_text(o, "note", note);
	}
	if (f->skid.measured) {
		/* the set names its unit: median and max are events, a name used in other units */
		struct pb_rset *skid = pb_rset_set(o, "skid");
		pb_rset_text(skid, "unit", "events");
		pb_rset_int(skid, "samples", PB_UNIT_SAMPLES, (int64_t)f->skid.samples);
		pb_rset_int(skid, "median", PB_UNIT_NONE, (int64_t)f->skid.median);
		pb_rset_int(skid, "max", PB_UNIT_NONE, (int64_t)f->skid.max);
		pb_rset_int(skid, "out_of_step", PB_UNIT_SAMPLES, (int64_t)f->skid.out_of_step);
		pb_rset_text(skid, "means",
			     "events counted between the counter's overflow and the sample: the count "
			     "the sample carries (PERF_SAMPLE_READ) less k x period for the k-th "
			     "overflow; out_of_step samples (a loss before them, or a skid of a period "
			     "or more) are taken modulo the period");
	}
	pb_rset_bool(o, "opened", f->opened_all);
	if (!f->opened_all)
		pb_rset_text(o, "open_error", f->open_error);
}

void pb_point_record(const struct pb_point_request *req, const struct pb_point *pt,
		     struct pb_rset *o)
{
	char params[256];
	pb_workload_params_text(&req->workload, params, sizeof params);
	pb_rset_text(o, "workload", req->workload.workload->name);
	pb_rset_text(o, "params", params);
	pb_rset_int(o, "iterations", PB_UNIT_ITERATIONS, (int64_t)req->iterations);
	pb_rset_int(o, "threads", PB_UNIT_THREADS, req->threads);
	pb_rset_text(o, "delivery", pb_delivery_name(req->delivery));
	pb_rset_int(o, "wall_ns", PB_UNIT_NS, (int64_t)pt->wall_ns);
	struct pb_rlist *elapsed = pb_rset_list(o, "elapsed_ns");
	for (unsigned t = 0; t < req->threads; t++)
		pb_rlist_int(elapsed, PB_UNIT_NS, (int64_t)pt->elapsed_ns[t]);
	struct pb_rlist *cpu = pb_rset_list(o, "cpu_ns");
	for (unsigned t = 0; t < req->threads; t++)
		pb_rlist_int(cpu, PB_UNIT_NS, (int64_t)pt->cpu_ns[t]);
	/* Threads that ran where the scheduler put them: their timings and any per-CPU figure
	 * are not those of the CPUs asked for. */
	pb_rset_int(o, "unpinned_threads", PB_UNIT_THREADS, pt->unpinned_threads);
	/* Signals lost to a full signal queue are never hidden; only signal mode can lose them. */
	if (req->delivery == PB_DELIVERY_SIGNAL)
		pb_rset_int(o, "signal_queue_overflows", PB_UNIT_SIGNALS,
			    (int64_t)pt->signal_overflows);
	/* What the engine's own reader costs, beside the sampled threads' cpu_ns: only drain
	 * mode has one (bench/peer.sh compares it with perf record's own CPU time). */
	if (req->delivery == PB_DELIVERY_DRAIN && !req->no_perf) {
		pb_rset_int(o, "collector_cpu_ns", PB_UNIT_NS, (int64_t)pt->collector_cpu_ns);
		pb_rset_int(o, "collector_wakeups", PB_UNIT_COUNT, (int64_t)pt->collector_wakeups);
	}
	if (pt->label >= 0)
		pb_rset_text(o, "label", pt->instance.truth.labels[pt->label].name);
	struct pb_rlist *events = pb_rset_list(o, "events");
	for (unsigned e = 0; e < req->nevents; e++)
		record_figures(req, e, &pt->ev[e], pb_rlist_set(events));
}

void pb_point_traits(const struct pb_point_request *req, struct pb_result_point *point)
{
	if (req->no_perf || !req->nevents)
		return;
	const struct pb_spec *spec = &req->events[0].spec;
	/* the canonical spec is the point's only when the point names the spec measured */
	char canonical[256];
	pb_spec_canonical(spec, canonical, sizeof canonical);
	pb_result_traits_set(&point->traits, spec->facility,
			     strcmp(point->facility, spec->text) ? NULL : canonical,
			     pb_ip_kind_name(pb_spec_ip_kind(req->machine, spec)));
}

/* text after prefix, indented under the figures and folded at 100 columns */
static void print_wrapped(FILE *out, const char *prefix, const char *text)
{
	const int indent = 19, width = 100;
	int col = fprintf(out, "%*s%s", indent, "", prefix);
	const char *p = text;
	while (*p) {
		const char *end = strchr(p, ' ');
		int len = end ? (int)(end - p) : (int)strlen(p);
		if (col + 1 + len > width && col > indent) {
			col = fprintf(out, "\n%*s", indent + 2, "") - 1;
		} else if (p != text) {
			fputc(' ', out);
			col++;
		}
		col += fprintf(out, "%.*s", len, p);
		p += len;
		while (*p == ' ')
			p++;
	}
	fputc('\n', out);
}

static void print_own_figures(FILE *out, const struct pb_spec *spec,
			      const struct pb_point_figures *f)
{
	const struct pb_own_figure *own;
	for (size_t i = 0; (own = pb_spec_own_figure(spec, i)); i++) {
		fputs("; ", out);
		fprintf(out, own->shown, (unsigned long long)f->own[i]);
	}
}

void pb_point_print(FILE *out, const struct pb_point_request *req, const struct pb_point *pt)
{
	char params[256];
	pb_workload_params_text(&req->workload, params, sizeof params);
	fprintf(out, "workload %s:%s, %llu iterations x %u thread(s), delivery %s, %.3f ms\n",
		req->workload.workload->name, params, (unsigned long long)req->iterations,
		req->threads, pb_delivery_name(req->delivery), (double)pt->wall_ns / 1e6);
	if (pt->label >= 0)
		fprintf(out, "probe site: %s\n", pt->instance.truth.labels[pt->label].name);
	if (pt->unpinned_threads)
		fprintf(out, "UNPINNED: %u of %u thread(s) could not be pinned to their CPU\n",
			pt->unpinned_threads, req->threads);
	if (req->no_perf)
		return;
	if (req->delivery == PB_DELIVERY_DRAIN)
		fprintf(out, "collector thread: %.3f ms CPU, %llu wakeups\n",
			(double)pt->collector_cpu_ns / 1e6, (unsigned long long)pt->collector_wakeups);
	fprintf(out, "%-18s %10s %10s %12s %12s %9s %8s %8s %8s %7s\n", "facility", "period",
		"basis", "expected", "observed", "accuracy", "lost", "throttle", "signals",
		"run/en");
	for (unsigned e = 0; e < req->nevents; e++) {
		const struct pb_point_figures *f = &pt->ev[e];
		char accuracy[16];
		if (f->no_samples)
			snprintf(accuracy, sizeof accuracy, "NO SAMPLES");
		else if (f->silent_zero)
			snprintf(accuracy, sizeof accuracy, "SILENT 0");
		else if (isnan(f->accuracy))
			snprintf(accuracy, sizeof accuracy, "-");
		else
			snprintf(accuracy, sizeof accuracy, "%8.3f%%", f->accuracy);
		fprintf(out, "%-18s %10llu %10s %12.1f %12llu %9s %8llu %8llu %8llu %7.3f\n",
			req->events[e].spec.text, (unsigned long long)req->events[e].period,
			f->basis, f->expected, (unsigned long long)f->observed, accuracy,
			(unsigned long long)f->lost, (unsigned long long)f->throttles,
			(unsigned long long)f->signals,
			f->time_enabled ? (double)f->time_running / (double)f->time_enabled : 1.0);
		fprintf(out, "%-18s count %llu", "", (unsigned long long)f->count);
		if (!isnan(f->signed_error) && f->signed_error != 0)
			fprintf(out, "; %s by %.3f %%", f->signed_error > 0 ? "OVER" : "UNDER",
				fabs(f->signed_error));
		if (f->wrong_level_samples)
			fprintf(out, "; WRONG LEVEL: %llu samples at a level the run excluded",
				(unsigned long long)f->wrong_level_samples);
		if (!strcmp(f->basis, "declared"))
			fprintf(out, " (declared %llu per thread)", (unsigned long long)f->declared);
		/* an exact facility's count is the declaration, or a finding with its sign */
		uint64_t declared_all = f->declared * req->threads;
		if (!strcmp(f->basis, "declared") && req->events[e].spec.facility->exact &&
		    f->opened_all && f->count != declared_all)
			fprintf(out, "; count %s the declaration by %llu",
				f->count > declared_all ? "OVER" : "UNDER",
				(unsigned long long)(f->count > declared_all ? f->count - declared_all
									  : declared_all - f->count));
		print_own_figures(out, &req->events[e].spec, f);
		if (f->precise_requested > f->precise_granted)
			fprintf(out, "; precise level LOWERED: requested %d, granted %d",
				f->precise_requested, f->precise_granted);
		else if (f->precise_granted > 0)
			fprintf(out, "; precise level %d", f->precise_granted);
		if (f->filtered)
			fprintf(out, "; filtered %llu (the kernel left out an excluded level)",
				(unsigned long long)f->filtered);
		if (f->missed)
			fprintf(out, "; missed %llu ticks (due, neither sampled nor lost)",
				(unsigned long long)f->missed);
		if (f->dropped)
			fprintf(out, "; DROPPED %llu unparseable records (neither observed nor lost)",
				(unsigned long long)f->dropped);
		if (f->skid.measured && f->skid.samples)
			fprintf(out, "; skid median %llu, max %llu events after the overflow (%llu "
				"samples%s)", (unsigned long long)f->skid.median,
				(unsigned long long)f->skid.max, (unsigned long long)f->skid.samples,
				f->skid.out_of_step ? ", some OUT OF STEP with the period" : "");
		fprintf(out, "\n");
		if (f->withheld[0])
			print_wrapped(out, "no accuracy: ", f->withheld);
	}
}

const char *pb_point_direction(const struct pb_point_figures *f)
{
	if (isnan(f->signed_error))
		return "none";
	return f->signed_error > 0 ? "over" : f->signed_error < 0 ? "under" : "exact";
}

