/* Figure records (figures.h): which figures of a point are its key figures, and the interval
 * each one carries.
 *
 * The key figures are found by the metrics a point has, not by the experiment's name:
 *  accuracy          metrics.accuracy (a summary over runs): mean, 95 % CI of the mean
 *  bias_deviation    metrics.max_deviation: mean of the runs' own maximum deviations, with the
 *                    95 % CI of that mean from the runs; else ± the noise tolerance the point
 *                    states (tolerance_pp: the deviation sampling noise alone reaches)
 *  cost_ns_per_sample, cost_ns_per_event, cost_excess_ns
 *                    the least-squares fit with its 95 % CI half-width; "resolved" as the fit
 *                    says
 *  overhead_time_pct, overhead_cpu_pct
 *                    the sampled runs' time over the same thread count's baseline, with the
 *                    experiment's own interval (rounds paired); a file written before it had
 *                    one: first-order propagation of both means' 95 % CIs (relative
 *                    half-widths added in quadrature)
 *  loss_pct          lost / (kept + lost) records, Wilson 95 % score interval on the counts
 *  prediction_error_pct
 *                    metrics.error_pct (a summary over runs)
 *  prediction_slowdown_error_pp
 *                    predicted - measured slowdown, ± the measured slowdown's 95 % CI and
 *                    the predicted one's (its cost's) in quadrature, as the verdict judges;
 *                    the measured one's alone in a file written before predictions had one
 * A figure from fewer than two runs has no interval (null): it is shown, and never judged.
 * A point marked too_few_samples, not applicable or failed gives no figure. */
#include "io/figures.h"

#include "analysis/stats.h"
#include "io/result_traits.h"
#include "io/results.h"
#include "util/kit.h"
#include "util/text.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The settings a row of a comparison is told by: what the user or the experiment chose, never
 * what the machine made of it (iterations, IP kind). */
static const char *const setting_names[] = {
	"period", "threads", "levels", "events_opened_together", "delivery", "ring_pages",
	"wakeup", "poll_us", "padding", "kind", "period_kind", "aimed_slowdown_pct",
};

static json_t *machine_meta(const struct pb_results *r, const char *label)
{
	const struct pb_rset *m = pb_rset_get_set(&r->machine, "machine");
	json_t *o = json_object();
	const char *host = pb_rset_get_text(m, "host");
	json_object_set_new(o, "host", host && *host ? json_string(host) : json_null());
	json_object_set_new(o, "label", json_string(host && *host ? host : label));
	static const char *const copied[] = {"cpu_vendor", "cpu_family", "cpu_model",
					     "cpu_stepping", "cpu_model_name", "microcode",
					     "kernel", "hypervisor", "midr", "core_pmu"};
	for (size_t i = 0; i < PB_ARRAY_SIZE(copied); i++) {
		const struct pb_rvalue *v = pb_rset_get(m, copied[i]);
		json_object_set_new(o, copied[i], v ? pb_rvalue_json(v) : json_null());
	}
	json_t *pmus = json_array();
	const struct pb_rlist *pl = pb_rset_get_list(m, "pmus");
	for (size_t i = 0; i < pb_rlist_size(pl); i++) {
		const char *name = pb_rset_get_text(pb_rlist_set_at(pl, i), "name");
		if (name)
			json_array_append_new(pmus, json_string(name));
	}
	json_object_set_new(o, "pmus", pmus);
	json_t *verdicts = json_object();
	const struct pb_rlist *fl = pb_rset_get_list(&r->machine, "facilities");
	for (size_t i = 0; i < pb_rlist_size(fl); i++) {
		const struct pb_rset *f = pb_rlist_set_at(fl, i);
		const char *name = pb_rset_get_text(f, "name"), *verdict = pb_rset_get_text(f, "verdict");
		if (name && verdict)
			json_object_set_new(verdicts, name, json_string(verdict));
	}
	json_object_set_new(o, "verdicts", verdicts);
	return o;
}

/* The fields every record of one document shares. */
static json_t *record_base(const struct pb_results *r, const json_t *machine, const char *kind)
{
	const char *version = pb_rset_get_text(&r->head, "pesbench_version");
	const char *started = pb_rset_get_text(&r->head, "started");
	const char *run_id = pb_rset_get_text(&r->head, "run_id");
	char derived[320];
	if (!run_id) {
		/* a document from before run ids: its machine and start time tell it apart */
		pb_format(derived, sizeof derived, "%s@%s",
			  json_string_value(json_object_get(machine, "label")),
			  started ? started : "?");
		run_id = derived;
	}
	json_t *o = json_pack("{s:s, s:s}", "schema", PB_FIGURE_SCHEMA, "record", kind);
	json_object_set_new(o, "run_id", json_string(run_id));
	json_object_set_new(o, "timestamp", started ? json_string(started) : json_null());
	json_object_set_new(o, "pesbench_version", version ? json_string(version) : json_null());
	json_object_set(o, "machine", (json_t *)machine);
	return o;
}

static json_t *settings_of(const struct pb_result_point *p)
{
	json_t *o = json_object();
	/* a prediction chosen for a slowdown: its period comes from the run's own fit, and two
	 * runs' predictions line up on the slowdown they aimed at */
	bool aimed = pb_rset_get(&p->params, "aimed_slowdown_pct") != NULL;
	for (size_t i = 0; i < PB_ARRAY_SIZE(setting_names); i++) {
		if (aimed && !strcmp(setting_names[i], "period"))
			continue;
		const struct pb_rvalue *v = pb_rset_get(&p->params, setting_names[i]);
		if (!v || (v->kind != PB_RV_INT && v->kind != PB_RV_TEXT && v->kind != PB_RV_REAL &&
			   v->kind != PB_RV_BOOL))
			continue;
		/* "-" stands for "no delivery at all" (a baseline): no setting */
		if (v->kind == PB_RV_TEXT && !strcmp(v->as.text, "-"))
			continue;
		json_object_set_new(o, setting_names[i], pb_rvalue_json(v));
	}
	return o;
}

struct figure_out {
	json_t *records;
	const struct pb_results *r;
	const json_t *machine;
	const struct pb_result_point *p;
	char facility[256];
};

static void emit(struct figure_out *fo, const char *metric, double value, enum pb_unit unit,
		 bool has_interval, double lo, double hi, const char *basis, unsigned n,
		 bool resolved)
{
	if (!isfinite(value))
		return;
	const struct pb_result_point *p = fo->p;
	json_t *o = record_base(fo->r, fo->machine, "figure");
	json_object_set_new(o, "experiment", json_string(p->experiment));
	json_object_set_new(o, "facility", json_string(fo->facility));
	if (strcmp(fo->facility, p->facility))
		json_object_set_new(o, "facility_as_written", json_string(p->facility));
	/* what compare matches the row on, from the point's traits: "precise" for a facility
	 * compared with other vendors' precise ones, else the facility itself */
	char family[256];
	pb_result_family(p, family, sizeof family);
	json_object_set_new(o, "facility_kind",
			    json_string(strcmp(family, "precise") ? fo->facility : "precise"));
	json_object_set_new(o, "workload", json_string(p->workload ? p->workload : ""));
	json_object_set_new(o, "settings", settings_of(p));
	json_object_set_new(o, "metric", json_string(metric));
	json_object_set_new(o, "value", json_real(value));
	json_object_set_new(o, "unit", json_string(pb_unit_name(unit)));
	if (has_interval && isfinite(lo) && isfinite(hi))
		json_object_set_new(o, "interval",
				    json_pack("{s:f, s:f, s:s}", "lo", lo, "hi", hi, "basis", basis));
	else
		json_object_set_new(o, "interval", json_null());
	json_object_set_new(o, "n", json_integer(n));
	json_object_set_new(o, "resolved", json_boolean(resolved));
	bool ok;
	double lost = pb_rset_get_number(&p->metrics, "lost_total", &ok);
	json_object_set_new(o, "lost", json_integer(ok ? (json_int_t)lost : 0));
	double throttles = pb_rset_get_number(&p->metrics, "throttles_total", &ok);
	json_object_set_new(o, "throttles", json_integer(ok ? (json_int_t)throttles : 0));
	const struct pb_rsummary *rr = pb_rset_get_summary(&p->metrics, "running_ratio");
	json_object_set_new(o, "running_ratio_min", rr ? json_real(rr->min) : json_null());
	json_array_append_new(fo->records, o);
}

static void emit_summary(struct figure_out *fo, const char *metric, const char *name)
{
	const struct pb_rvalue *v = pb_rset_get(&fo->p->metrics, name);
	if (!v || v->kind != PB_RV_SUMMARY)
		return;
	const struct pb_rsummary *s = &v->as.sum;
	emit(fo, metric, s->mean, v->unit, s->n >= 2, s->mean - s->ci95, s->mean + s->ci95,
	     "95 % CI of the mean over runs", s->n, true);
}

bool pb_figure_bias_interval(const struct pb_result_point *p, const char *field,
			     struct pb_figure_interval *out)
{
	const struct pb_rvalue *v = pb_rset_get(&p->metrics, field);
	if (!v || !pb_rvalue_is_number(v))
		return false;
	double dev = pb_rvalue_number(v);
	bool ok;
	double tolerance = pb_rset_get_number(&p->metrics, "tolerance_pp", &ok);
	size_t nruns = pb_rlist_size(&p->runs), n = 0;
	double *per_run = calloc(nruns ? nruns : 1, sizeof *per_run);
	/* the point's max_deviation is the mean of one attribution's: the one it is nearest */
	const char *chosen = strcmp(field, "max_deviation") ? field : NULL;
	if (!chosen && pb_rset_get(&p->metrics, "max_deviation_at_ip")) {
		double at = pb_rset_get_number(&p->metrics, "max_deviation_at_ip", NULL);
		double before = pb_rset_get_number(&p->metrics, "max_deviation_before_ip", NULL);
		chosen = fabs(dev - at) <= fabs(dev - before) ? "max_deviation_at_ip"
							      : "max_deviation_before_ip";
	}
	for (size_t r = 0; per_run && chosen && r < nruns; r++) {
		const struct pb_rset *a =
			pb_rset_get_set(pb_rlist_set_at(&p->runs, r), "attribution");
		bool has;
		double x = pb_rset_get_number(a, chosen, &has);
		if (a && has && pb_rset_get_int(a, "samples") > 0)
			per_run[n++] = x;
	}
	*out = (struct pb_figure_interval){.value = dev, .unit = v->unit, .n = (unsigned)n};
	if (n >= 2) {
		struct pb_summary s;
		pb_summarize(per_run, n, &s);
		out->has_interval = true;
		out->lo = dev - s.ci95;
		out->hi = dev + s.ci95;
		out->basis = "95 % CI of the mean over runs";
	} else if (ok) {
		out->has_interval = true;
		out->lo = dev - tolerance;
		out->hi = dev + tolerance;
		out->basis = "± the deviation sampling noise alone reaches (tolerance_pp)";
		out->n = (unsigned)nruns;
	}
	free(per_run);
	return true;
}

/* The bias deviation's interval from the runs' own deviations (the point's figure is their
 * mean); each run's deviation of the attribution the point chose. */
static void emit_bias(struct figure_out *fo)
{
	struct pb_figure_interval f;
	if (pb_figure_bias_interval(fo->p, "max_deviation", &f))
		emit(fo, "bias_deviation", f.value, f.unit, f.has_interval, f.lo, f.hi,
		     f.has_interval ? f.basis : "", f.n, true);
}

static void emit_fit(struct figure_out *fo, const char *metric, const char *value_name,
		     const char *ci_name)
{
	const struct pb_rset *m = &fo->p->metrics;
	const struct pb_rvalue *v = pb_rset_get(m, value_name);
	if (!v || !pb_rvalue_is_number(v))
		return;
	bool has_ci;
	double x = pb_rvalue_number(v), ci = pb_rset_get_number(m, ci_name, &has_ci);
	const struct pb_rvalue *resolved = pb_rset_get(m, "resolved");
	bool ok = !resolved || resolved->kind != PB_RV_BOOL || resolved->as.b;
	emit(fo, metric, x, v->unit, has_ci && isfinite(ci), x - ci, x + ci,
	     "95 % CI of the least-squares slope",
	     (unsigned)pb_rset_get_int(m, "points"), ok);
}

/* A prediction judged on the slowdown (docs/overhead.md): predicted - measured slowdown in
 * points of run time, its interval what the verdict judges with: the measured slowdown's 95 %
 * CI and the predicted one's in quadrature (the measured one's alone in a file written before
 * predictions carried theirs). Undecided or not, the figure stands with its interval: the
 * verdict is the point's. A prediction without an upper end gives it none, and it is not
 * resolved. */
static void emit_slowdown_error(struct figure_out *fo)
{
	const struct pb_rset *m = &fo->p->metrics;
	bool has, has_ci, has_predicted_ci;
	double error = pb_rset_get_number(m, "slowdown_error_pp", &has);
	double ci = pb_rset_get_number(m, "measured_slowdown_ci95_pp", &has_ci);
	double predicted_ci = pb_rset_get_number(m, "predicted_slowdown_ci95_pp",
						 &has_predicted_ci);
	bool unbounded = pb_rset_is_true(m, "predicted_slowdown_ci95_pp_unbounded");
	if (!has)
		return;
	if (has_predicted_ci)
		ci = hypot(ci, predicted_ci);
	emit(fo, "prediction_slowdown_error_pp", error, PB_UNIT_PERCENT_POINTS,
	     has_ci && isfinite(ci) && !unbounded, error - ci, error + ci,
	     has_predicted_ci ? "95 % CIs of the measured slowdown (rounds paired) and of the "
				"predicted one (its cost's), in quadrature"
			      : "95 % CI of the measured slowdown (rounds paired)",
	     (unsigned)pb_rset_get_int(m, "rounds"), !unbounded);
}

/* The point of the same experiment, facility and workload whose role is "baseline", with the
 * same thread count. */
static const struct pb_result_point *baseline_of(const struct pb_results *r,
						 const struct pb_result_point *p)
{
	for (size_t i = 0; i < r->npoints; i++) {
		const struct pb_result_point *q = r->points[i];
		const char *role = pb_rset_get_text(&q->params, "role");
		if (role && !strcmp(role, "baseline") && !strcmp(q->experiment, p->experiment) &&
		    !strcmp(q->facility, p->facility) && !strcmp(q->workload, p->workload) &&
		    pb_rset_get_int(&q->params, "threads") == pb_rset_get_int(&p->params, "threads"))
			return q;
	}
	return NULL;
}

bool pb_figure_overhead_interval(const struct pb_results *r, const struct pb_result_point *p,
				 enum pb_figure_overhead which, struct pb_figure_interval *out)
{
	static const char *const names[][3] = {
		[PB_OVERHEAD_TIME] = {"time_overhead_pct", "time_overhead_ci95_pp", "wall_ns"},
		[PB_OVERHEAD_CPU] = {"cpu_overhead_pct", "cpu_overhead_ci95_pp", "cpu_ns"},
		[PB_OVERHEAD_MEMORY] = {"memory_overhead_pct", "memory_overhead_ci95_pp", NULL},
	};
	const char *const *n = names[which];
	bool has, has_ci;
	double pct = pb_rset_get_number(&p->metrics, n[0], &has);
	double ci = pb_rset_get_number(&p->metrics, n[1], &has_ci);
	if (!has)
		return false;
	const struct pb_rsummary *s = n[2] ? pb_rset_get_summary(&p->metrics, n[2]) : NULL;
	*out = (struct pb_figure_interval){.value = pct, .unit = PB_UNIT_PERCENT,
					   .n = s ? (unsigned)s->n : 0};
	if (has_ci) {
		out->has_interval = true;
		out->lo = pct - ci;
		out->hi = pct + ci;
		out->basis = "rounds paired with the baseline's: the mean paired difference over the "
			     "mean baseline, t interval";
		return true;
	}
	/* written before the experiment gave its own interval: the means' CIs propagated */
	const struct pb_result_point *base = r && s ? baseline_of(r, p) : NULL;
	const struct pb_rsummary *b = base ? pb_rset_get_summary(&base->metrics, n[2]) : NULL;
	if (!s || !b || s->n < 2 || b->n < 2 || s->mean <= 0 || b->mean <= 0)
		return true;
	double ratio = s->mean / b->mean;
	double rel = sqrt(pow(s->ci95 / s->mean, 2) + pow(b->ci95 / b->mean, 2));
	out->has_interval = true;
	out->lo = (ratio * (1 - rel) - 1) * 100;
	out->hi = (ratio * (1 + rel) - 1) * 100;
	out->basis = "95 % CIs of the sampled and baseline means, propagated to first order";
	out->n = s->n < b->n ? (unsigned)s->n : (unsigned)b->n;
	return true;
}

static void emit_overhead(struct figure_out *fo, const char *metric,
			  enum pb_figure_overhead which)
{
	struct pb_figure_interval f;
	if (pb_figure_overhead_interval(fo->r, fo->p, which, &f))
		emit(fo, metric, f.value, f.unit, f.has_interval, f.lo, f.hi,
		     f.has_interval ? f.basis : "", f.n, true);
}

bool pb_figure_loss_interval(const struct pb_result_point *p, struct pb_figure_interval *out)
{
	const struct pb_rset *m = &p->metrics;
	bool has, has_lost, has_kept;
	double pct = pb_rset_get_number(m, "loss_pct", &has);
	double lost = pb_rset_get_number(m, "lost_total", &has_lost);
	double kept = pb_rset_get_number(m, "samples_total", &has_kept);
	if (!has)
		return false;
	*out = (struct pb_figure_interval){.value = pct, .unit = PB_UNIT_PERCENT};
	if (!has_lost || !has_kept || lost + kept <= 0)
		return true;
	pb_wilson95(lost, lost + kept, &out->lo, &out->hi);
	out->lo *= 100;
	out->hi *= 100;
	out->has_interval = true;
	out->basis = "Wilson 95 % interval on the lost and kept counts";
	out->n = (unsigned)pb_rlist_size(&p->runs);
	return true;
}

static void emit_loss(struct figure_out *fo)
{
	struct pb_figure_interval f;
	if (pb_figure_loss_interval(fo->p, &f))
		emit(fo, "loss_pct", f.value, f.unit, f.has_interval, f.lo, f.hi,
		     f.has_interval ? f.basis : "", f.n, true);
}

static bool gives_no_figure(const struct pb_result_point *p)
{
	static const char *const markers[] = {"too_few_samples", "not_applicable", "error"};
	for (size_t i = 0; i < PB_ARRAY_SIZE(markers); i++) {
		const struct pb_rvalue *v = pb_rset_get(&p->params, markers[i]);
		if (!v)
			v = pb_rset_get(&p->metrics, markers[i]);
		if (v && !(v->kind == PB_RV_BOOL && !v->as.b) && v->kind != PB_RV_NULL)
			return true;
	}
	return false;
}

/* The scorecard as results.json holds it (read from the file, whichever way the loader types
 * it): one record per facility. */
static void emit_scorecard(json_t *records, const struct pb_results *r, const json_t *machine,
			   const json_t *scorecard)
{
	size_t i;
	json_t *entry;
	json_array_foreach(scorecard, i, entry) {
		const char *facility = json_string_value(json_object_get(entry, "facility"));
		if (!json_is_object(entry) || !facility)
			continue;
		json_t *o = record_base(r, machine, "scorecard");
		json_object_set(o, "entry", entry);
		json_object_set_new(o, "facility", json_string(facility));
		json_array_append_new(records, o);
	}
}

/* What else the machine did during the run (the suite's closing fields), or NULL when the
 * document does not say: a run beside a busy neighbour, or on a vCPU its host slowed for a while
 * (runner/cpu_speed.h), is told apart in a fleet's table. */
static json_t *load_of(const struct pb_results *r)
{
	static const char *const fields[][2] = {
		{"other_cpus", "other_load_cpus"}, {"other_cpus_ci95", "other_load_cpus_ci95"},
		{"steal_pct", "steal_pct"}, {"steal_ci95_pp", "steal_ci95_pp"},
		{"cpus", "load_cpus"}, {"cpu_speed_probes", "cpu_speed_probes"},
		{"cpu_speed_slower_probes", "cpu_speed_slower_probes"},
		{"cpu_speed_slowest_ratio", "cpu_speed_slowest_ratio"}};
	if (!pb_rvalue_is_number(pb_rset_get(&r->tail, "other_load_cpus")))
		return NULL;
	json_t *o = json_object();
	for (size_t i = 0; i < PB_ARRAY_SIZE(fields); i++) {
		const struct pb_rvalue *v = pb_rset_get(&r->tail, fields[i][1]);
		json_object_set_new(o, fields[i][0],
				    pb_rvalue_is_number(v) ? json_real(pb_rvalue_number(v)) : json_null());
	}
	return o;
}

static json_t *from_results(const struct pb_results *r, const json_t *scorecard,
			   const char *label)
{
	json_t *records = json_array();
	json_t *machine = machine_meta(r, label && *label ? label : "?");
	/* the run itself, so a run that measured nothing is still a run */
	json_t *run = record_base(r, machine, "run");
	const struct pb_rvalue *complete = pb_rset_get(&r->head, "complete");
	json_object_set_new(run, "complete",
			    json_boolean(complete && complete->kind == PB_RV_BOOL && complete->as.b));
	json_object_set_new(run, "skipped", pb_rvalue_json(&(struct pb_rvalue){
						    .kind = PB_RV_LIST,
						    .as.list = (struct pb_rlist *)&r->skipped}));
	json_t *load = load_of(r);
	if (load)
		json_object_set_new(run, "load", load);
	json_array_append_new(records, run);
	emit_scorecard(records, r, machine, scorecard);
	for (size_t i = 0; i < r->npoints; i++) {
		const struct pb_result_point *p = r->points[i];
		if (gives_no_figure(p))
			continue;
		struct figure_out fo = {.records = records, .r = r, .machine = machine, .p = p};
		/* "timer" → "timer:cpu-clock", so files from before the default event was written
		 * out line up with newer ones: the point's traits say it */
		pb_result_spec(p, fo.facility, sizeof fo.facility);
		const struct pb_rset *m = &p->metrics;
		/* an attribution point's figure is its deviation; one whose runs had no samples
		 * to attribute has none (its accuracy would read as the experiment's figure) */
		if (pb_rset_get(m, "max_deviation") || pb_rset_get(m, "attribution") ||
		    pb_rset_get(&p->params, "runs_with_shares"))
			emit_bias(&fo);
		else
			emit_summary(&fo, "accuracy", "accuracy");
		emit_fit(&fo, "cost_ns_per_sample", "ns_per_sample", "ci95_ns");
		emit_fit(&fo, "cost_ns_per_event", "ns_per_event", "ns_per_event_ci95");
		emit_fit(&fo, "cost_excess_ns", "excess_over_floor_ns", "excess_ci95_ns");
		if (pb_rset_get_summary(m, "wall_ns")) {
			emit_overhead(&fo, "overhead_time_pct", PB_OVERHEAD_TIME);
			emit_overhead(&fo, "overhead_cpu_pct", PB_OVERHEAD_CPU);
		}
		emit_loss(&fo);
		emit_summary(&fo, "prediction_error_pct", "error_pct");
		emit_slowdown_error(&fo);
	}
	json_decref(machine);
	return records;
}

static json_t *done_record(const struct pb_results *r, const char *label, int exit_code,
			       size_t nfigures)
{
	json_t *machine = machine_meta(r, label && *label ? label : "?");
	json_t *o = record_base(r, machine, "done");
	json_decref(machine);
	const struct pb_rvalue *complete = pb_rset_get(&r->head, "complete");
	json_object_set_new(o, "exit_code", json_integer(exit_code));
	json_object_set_new(o, "complete",
			    json_boolean(complete && complete->kind == PB_RV_BOOL && complete->as.b));
	json_object_set_new(o, "figures", json_integer((json_int_t)nfigures));
	return o;
}

static size_t figure_count(const json_t *records)
{
	size_t i, n = 0;
	json_t *rec;
	json_array_foreach(records, i, rec)
		n += !strcmp(json_string_value(json_object_get(rec, "record")), "figure");
	return n;
}

int pb_figures_of_file(const char *path, const char *label, int exit_code, json_t **records,
		       struct pb_error *err)
{
	struct pb_results r;
	if (pb_results_load(path, &r, err))
		return -1;
	/* the file loaded whole a moment ago: read again only for its scorecard */
	json_t *raw = json_load_file(path, 0, NULL);
	*records = from_results(&r, json_object_get(raw, "scorecard"), label);
	const struct pb_rvalue *stored = pb_rset_get(&r.tail, "exit_code");
	if (exit_code < 0 && stored && stored->kind == PB_RV_INT && stored->as.i >= 0 &&
	    stored->as.i <= 255)
		exit_code = (int)stored->as.i;
	if (exit_code >= 0) {
		json_t *done = done_record(&r, label, exit_code, figure_count(*records));
		char folder[4200];
		pb_format(folder, sizeof folder, "%s", path);
		char *slash = strrchr(folder, '/');
		if (slash)
			*slash = '\0';
		json_object_set_new(done, "results", json_string(slash ? folder : "."));
		json_array_append_new(*records, done);
	}
	json_decref(raw);
	pb_results_free(&r);
	return 0;
}

static char *jsonl_text(const json_t *records, size_t *len)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);
	if (!f)
		return NULL;
	pb_figures_print_jsonl(f, records);
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	*len = size;
	return buf;
}

void pb_figures_print_jsonl(FILE *out, const json_t *records)
{
	size_t i;
	json_t *rec;
	json_array_foreach(records, i, rec) {
		char *line = json_dumps(rec, JSON_COMPACT | JSON_PRESERVE_ORDER);
		if (line)
			fprintf(out, "%s\n", line);
		free(line);
	}
}

int pb_figures_write_jsonl(const char *dir, const json_t *records, struct pb_error *err)
{
	size_t len = 0;
	char *text = jsonl_text(records, &len);
	if (!text)
		return pb_fail(err, PB_EXIT_FAILURE, 0, "out of memory writing results.jsonl");
	char path[4200];
	pb_format(path, sizeof path, "%s/results.jsonl", dir);
	int rc = pb_write_atomic(path, text, len, err);
	free(text);
	return rc;
}

int pb_figures_parse_jsonl(const char *data, size_t len, const char *name, json_t *records,
			   struct pb_error *err)
{
	size_t line = 0, start = 0;
	while (start < len) {
		size_t end = start;
		while (end < len && data[end] != '\n')
			end++;
		line++;
		size_t a = start, b = end;
		while (a < b && (data[a] == ' ' || data[a] == '\t' || data[a] == '\r'))
			a++;
		start = end + 1;
		if (a == b)
			continue;
		json_error_t jerr;
		json_t *rec = json_loadb(data + a, b - a, 0, &jerr);
		const char *schema = json_string_value(json_object_get(rec, "schema"));
		const char *kind = json_string_value(json_object_get(rec, "record"));
		if (!rec || !json_is_object(rec)) {
			json_decref(rec);
			return pb_fail(err, PB_EXIT_BAD_FILE, 0,
				       "%s line %zu is not a JSON object (%s); results.jsonl holds "
				       "one record a line",
				       name, line, jerr.text);
		}
		if (!schema || strcmp(schema, PB_FIGURE_SCHEMA) || !kind ||
		    !json_is_object(json_object_get(rec, "machine")) ||
		    !json_is_string(json_object_get(rec, "run_id"))) {
			json_decref(rec);
			return pb_fail(err, PB_EXIT_BAD_FILE, 0,
				       "%s line %zu is not a %s record (schema, record, run_id and "
				       "machine are needed); is it a results.jsonl?",
				       name, line, PB_FIGURE_SCHEMA);
		}
		if (!strcmp(kind, "figure") &&
		    (!json_is_string(json_object_get(rec, "metric")) ||
		     !json_is_number(json_object_get(rec, "value")) ||
		     !json_is_string(json_object_get(rec, "experiment")) ||
		     !json_is_string(json_object_get(rec, "facility")))) {
			json_decref(rec);
			return pb_fail(err, PB_EXIT_BAD_FILE, 0,
				       "%s line %zu: a figure record needs experiment, facility, "
				       "metric and a numeric value",
				       name, line);
		}
		json_array_append_new(records, rec);
	}
	return 0;
}

int pb_figures_load_jsonl(const char *path, json_t *records, struct pb_error *err)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return pb_fail(err, PB_EXIT_BAD_FILE, errno, "cannot open %s", path);
	char *buf = NULL;
	size_t size = 0, cap = 0, got;
	char chunk[65536];
	while ((got = fread(chunk, 1, sizeof chunk, f)) > 0) {
		if (size + got > cap) {
			cap = (size + got) * 2;
			char *grown = realloc(buf, cap);
			if (!grown) {
				free(buf);
				fclose(f);
				return pb_fail(err, PB_EXIT_FAILURE, 0, "out of memory reading %s",
					       path);
			}
			buf = grown;
		}
		memcpy(buf + size, chunk, got);
		size += got;
	}
	bool bad = ferror(f);
	fclose(f);
	int rc = bad ? pb_fail(err, PB_EXIT_BAD_FILE, errno, "cannot read %s", path)
		     : pb_figures_parse_jsonl(buf ? buf : "", size, path, records, err);
	free(buf);
	return rc;
}

void pb_figures_identify_machine(json_t *probe)
{
	json_t *m = json_object_get(probe, "machine");
	if (!json_is_object(m))
		return;
	char host[256] = "";
	/* "(none)" is the kernel's name for a machine nobody named (a bare guest) */
	if (!gethostname(host, sizeof host - 1) && host[0] && strcmp(host, "(none)"))
		json_object_set_new(m, "host", json_string(host));
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[512];
	while (f && fgets(line, sizeof line, f)) {
		if (strncmp(line, "microcode", 9))
			continue;
		const char *colon = strchr(line, ':');
		if (!colon)
			break;
		char value[64];
		pb_format(value, sizeof value, "%s", colon + 1 + (colon[1] == ' '));
		value[strcspn(value, "\n")] = '\0';
		json_object_set_new(m, "microcode", json_string(value));
		break;
	}
	if (f)
		fclose(f);
}

void pb_figures_new_run_id(char *buf, size_t len)
{
	char host[256] = "";
	if (gethostname(host, sizeof host - 1) || !host[0])
		pb_format(host, sizeof host, "host");
	time_t now = time(NULL);
	struct tm tm;
	gmtime_r(&now, &tm);
	char when[32];
	strftime(when, sizeof when, "%Y%m%dT%H%M%SZ", &tm);
	pb_format(buf, len, "%s-%s-%d", host, when, (int)getpid());
}
