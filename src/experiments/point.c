#include "experiments/point.h"

#include "analysis/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* x86-64 and arm64 kernels live in the upper half of the address space. */
#define KERNEL_HALF 0x8000000000000000ull

void pb_point_request_defaults(struct pb_point_request *req)
{
	memset(req, 0, sizeof *req);
	req->iterations = 100000;
	req->threads = 1;
	req->delivery = PB_DELIVERY_NONE;
	req->exclude_kernel = true;
}

const char *pb_natural_workload(const struct pb_spec *spec)
{
	return pb_spec_workload(spec, PB_ROLE_NATURAL, NULL);
}

int pb_point_request_set(struct pb_point_request *req, const char *facility,
			 const char *workload, const char *label, bool period_given,
			 struct pb_error *err)
{
	req->no_perf = !strcmp(facility, "none");
	req->nevents = req->no_perf ? 0 : 1;
	if (!req->no_perf) {
		if (pb_spec_parse(facility, &req->events[0].spec, err))
			return -1;
		const struct pb_facility *f = req->events[0].spec.facility;
		if (!period_given)
			req->period = f->default_period;
		if (req->period && req->period < f->min_period)
			return pb_fail(err, PB_EXIT_USAGE, 0,
				       "--period %llu is below %s's minimum of %llu",
				       (unsigned long long)req->period, f->name,
				       (unsigned long long)f->min_period);
		req->events[0].period = req->period;
		/* A facility that cannot leave out a level here (IBS without :swfilt) samples
		 * every level. */
		const struct pb_spec *s = &req->events[0].spec;
		if (f->can_exclude && !f->can_exclude(s))
			req->exclude_kernel = false;
		if (f->samples_every_level &&
		    pb_machine_may_sample_kernel(req->machine ? req->machine : pb_machine_live()))
			req->exclude_kernel = false;
	}
	const char *w = workload ? workload
				 : pb_natural_workload(req->no_perf ? NULL : &req->events[0].spec);
	if (pb_workload_parse(w, &req->workload, err))
		return -1;
	/* Some events of a workload happen only in kernel mode (faults taken inside a system
	 * call): the facility says whether its spec must sample that level to see them. */
	struct pb_truth truth;
	if (!req->no_perf && !pb_workload_truth(&req->workload, 1, &truth, NULL) &&
	    pb_spec_needs_kernel_level(&req->events[0].spec, &truth))
		req->exclude_kernel = false;
	if (label) {
		if (strlen(label) >= sizeof req->label)
			return pb_fail(err, PB_EXIT_USAGE, 0, "--label '%s' is too long", label);
		strcpy(req->label, label);
	}
	if (pb_session_check_ring_pages(req->ring_pages, err))
		return -1;
	/* Last: a bad request is a usage error whatever the facility's state. */
	if (!req->no_perf && pb_point_refuse_untrusted(&req->events[0].spec, req->machine, err))
		return -1;
	return 0;
}

int pb_point_refuse_untrusted(const struct pb_spec *spec, const struct pb_machine *machine,
			      struct pb_error *err)
{
	const struct pb_machine *m = machine ? machine : pb_machine_live();
	struct pb_availability av;
	struct pb_self_test test;
	pb_facility_check(m, spec, NULL, &av, &test);
	/* Absence is the facility's attr()'s to report (tests drive absent facilities through a
	 * fake kernel); a facility that ran its self-test here and failed measures nothing. */
	if (test.verdict == PB_VERDICT_INERT || test.verdict == PB_VERDICT_INEXACT ||
	    test.verdict == PB_VERDICT_REFUSED)
		return pb_fail(err, PB_EXIT_UNAVAILABLE, test.sys_errno, "%s: %s", spec->text,
			       av.reason);
	return 0;
}

const char *pb_declared_events(const struct pb_spec *spec, const struct pb_truth *truth,
			       int label, uint64_t iterations, uint64_t *events)
{
	return pb_spec_declare(spec, truth, label, iterations, events);
}

/* Sample tallies, per event for privilege levels and per instruction for attribution. */
struct tally {
	struct pb_point *pt;
	unsigned nevents;
	uint64_t user[PB_MAX_EVENTS], kernel[PB_MAX_EVENTS], kernel_ip[PB_MAX_EVENTS];
	const struct pb_spec *spec[PB_MAX_EVENTS];
	const struct pb_machine *machine;
	uint64_t subset_samples[PB_MAX_EVENTS];  /* samples of the spec's subset, if it names one */
};

static void on_record(void *ctx, unsigned thread, unsigned event, const struct pb_record *rec)
{
	(void)thread;
	struct tally *t = ctx;
	if (rec->type != PERF_RECORD_SAMPLE || event >= t->nevents)
		return;
	const struct pb_sample *s = &rec->u.sample;
	const struct pb_spec *spec = t->spec[event];
	if (spec->subset && spec->facility->sample_in_subset) {
		if (!spec->facility->sample_in_subset(t->machine, spec, s))
			return;
		t->subset_samples[event]++;
	}
	unsigned mode = rec->misc & PERF_RECORD_MISC_CPUMODE_MASK;
	if (mode == PERF_RECORD_MISC_KERNEL || mode == PERF_RECORD_MISC_GUEST_KERNEL)
		t->kernel[event]++;
	else
		t->user[event]++;
	if (s->ip >= KERNEL_HALF)
		t->kernel_ip[event]++;
	struct pb_point *pt = t->pt;
	if (event != 0 || !pt->insn_samples)
		return;
	long at = pb_code_map_at(&pt->code, s->ip);
	long before = pb_code_map_before(&pt->code, s->ip);
	if (at >= 0)
		pt->insn_samples[at]++;
	if (before >= 0)
		pt->insn_samples_before[before]++;
	if (at < 0 && before < 0)
		pt->outside_samples++;
}

static int find_label(const struct pb_truth *truth, const char *name, struct pb_error *err)
{
	if (name[0]) {
		int l = pb_truth_label(truth, name);
		if (l < 0) {
			char known[512] = "";
			for (unsigned i = 0; i < truth->nlabels; i++) {
				strncat(known, truth->labels[i].name, sizeof known - strlen(known) - 3);
				if (i + 1 < truth->nlabels)
					strcat(known, ", ");
			}
			pb_fail(err, PB_EXIT_USAGE, 0, "no label '%s' in this workload; labels: %s",
				name, known);
			return -2;
		}
		return l;
	}
	return pb_truth_default_label(truth);
}

/* run_failed: the session did not run the measured region to its end, so no figure of it is
 * an accuracy, whatever the counts say. */
static void sum_figures(const struct pb_point_request *req, struct pb_point *pt,
			const struct tally *t, bool run_failed)
{
	const struct pb_session_result *sr = pt->session;
	for (unsigned e = 0; e < req->nevents; e++) {
		struct pb_point_figures *f = &pt->ev[e];
		const struct pb_spec *spec = &req->events[e].spec;
		f->basis = pb_declared_events(spec, &pt->instance.truth, pt->label, req->iterations,
					      &f->declared);
		f->opened_all = true;
		f->precise_requested = spec->precise;
		f->precise_granted = -1;
		for (unsigned th = 0; th < sr->threads; th++) {
			const struct pb_event_result *er = &sr->thread[th].events[e];
			if (er->opened && f->precise_granted < 0)
				f->precise_granted = (int)er->attr.precise_ip;
			if (!er->opened) {
				f->opened_all = false;
				snprintf(f->open_error, sizeof f->open_error, "%s", er->open_error);
				continue;
			}
			f->observed += er->samples;
			f->ibs_ops_sampled += spec->subset ? er->samples : 0;
			f->aux_truncated += er->ring.aux_truncated;
			f->aux_collision += er->ring.aux_collision;
			f->count += er->count;
			uint64_t filtered = spec->facility->filters_in_software &&
						    spec->facility->filters_in_software(spec)
					    ? er->ring.lost_samples : 0;
			f->filtered += filtered;
			f->lost += pb_event_lost(er) - filtered;
			f->dropped += er->ring.parse_errors;
			f->lost_format += er->lost_format;
			f->lost_records += er->ring.lost;
			f->lost_samples += er->ring.lost_samples;
			f->throttles += er->ring.throttles;
			f->unthrottles += er->ring.unthrottles;
			f->time_enabled += er->time_enabled;
			f->time_running += er->time_running;
			f->signals += er->signals;
			f->signals_wrong_thread += er->signals_wrong_thread;
			f->ring_pages = er->ring_pages;
			uint64_t period = req->events[e].period;
			if (!period || !strcmp(f->basis, "undeclared"))
				continue;
			/* A counter that overflows every period events takes floor(N / period)
			 * samples of N events, exact facility or not; a clock's ticks over a
			 * running time are not aligned to its start, so time is not floored; nor is
			 * a subset's share of the samples of every op (a mean, not a count). */
			if (!strcmp(f->basis, "declared") && spec->subset)
				f->expected += (double)f->declared / (double)period;
			else if (!strcmp(f->basis, "declared"))
				f->expected += (double)(f->declared / period);
			else if (!strcmp(f->basis, "count"))
				f->expected += (double)(er->count / period);
			else
				f->expected += (double)er->count / (double)period;
		}
		/* A subset's samples are the op samples whose registers say they belong to it:
		 * expected (declared subset events / period) is compared with those. */
		if (spec->subset)
			f->observed = t->subset_samples[e];
		if (spec->facility->time_based && f->expected > (double)(f->observed + f->lost))
			f->missed = (uint64_t)llround(f->expected - (double)(f->observed + f->lost));
		f->user_samples = t->user[e];
		f->kernel_samples = t->kernel[e];
		f->kernel_ip_samples = t->kernel_ip[e];
		/* Counting only: the count against the declaration, when there is one. An event
		 * that did not open on every thread has no accuracy. */
		f->no_samples = f->opened_all && req->events[e].period && f->expected >= 1 &&
				!f->observed;
		/* Nothing expected (a count of 0, a period longer than the run) is not 100 %. */
		if (run_failed || !f->opened_all || !strcmp(f->basis, "undeclared") ||
		    f->no_samples || (req->events[e].period && f->expected <= 0))
			f->accuracy = NAN;
		else if (req->events[e].period)
			f->accuracy = pb_accuracy((double)f->observed, f->expected);
		else if (!strcmp(f->basis, "declared"))
			f->accuracy = pb_accuracy((double)f->count, (double)f->declared * sr->threads);
		else
			f->accuracy = NAN;
	}
}

int pb_point_measure(const struct pb_point_request *req, struct pb_point *pt,
		     struct pb_error *err)
{
	memset(pt, 0, sizeof *pt);
	pt->label = -1;
	if (pb_instance_init(&pt->instance, &req->workload, req->iterations, req->threads, err))
		return -1;
	/* Only facilities that sit on an instruction need a label. */
	bool needs_label = req->label[0] != 0;
	for (unsigned e = 0; e < req->nevents; e++) {
		const struct pb_spec *s = &req->events[e].spec;
		needs_label |= pb_spec_sits_on_instruction(s);
	}
	int label = needs_label ? find_label(&pt->instance.truth, req->label, err) : -1;
	if (label == -2)
		goto fail;
	pt->label = label;
	pt->instance.code_label = label;

	if (req->no_perf) {
		if (pb_runner_run(&pt->instance, &pt->runner, err))
			goto fail;
		pt->wall_ns = pt->runner.wall_ns;
		memcpy(pt->elapsed_ns, pt->runner.elapsed_ns, sizeof pt->elapsed_ns);
		memcpy(pt->cpu_ns, pt->runner.cpu_ns, sizeof pt->cpu_ns);
		for (unsigned th = 0; th < pt->runner.threads; th++)
			pt->unpinned_threads += !pt->runner.pinned[th];
		return 0;
	}

	if (req->attribute) {
		const struct pb_truth *tr = &pt->instance.truth;
		if (pb_code_map_build(&pt->code, tr->code_begin, tr->code_end, err))
			goto fail;
		for (unsigned l = 0; l < tr->nlabels; l++)
			pb_code_map_label(&pt->code, tr->labels[l].addr, (int)l);
		pt->insn_samples = calloc(pt->code.n, sizeof *pt->insn_samples);
		pt->insn_samples_before = calloc(pt->code.n, sizeof *pt->insn_samples_before);
		if (!pt->insn_samples || !pt->insn_samples_before) {
			pb_fail(err, PB_EXIT_FAILURE, 0, "out of memory");
			goto fail;
		}
	}

	struct pb_session_config cfg = {
		.nevents = req->nevents,
		.delivery = req->delivery,
		.machine = req->machine,
		.ring_pages = req->ring_pages,
		.run_with_unopened = req->run_with_unopened,
	};
	uint64_t most_expected = 0;
	for (unsigned e = 0; e < req->nevents; e++) {
		cfg.events[e].spec = req->events[e].spec;
		cfg.events[e].period = req->events[e].period;
		cfg.events[e].exclude_kernel = req->exclude_kernel;
		cfg.events[e].exclude_user = req->exclude_user;
		cfg.events[e].optional = req->events[e].optional;
		uint64_t declared;
		/* The ring holds every op sample, not only a subset's. */
		struct pb_spec all_ops = req->events[e].spec;
		all_ops.subset = 0;
		pb_declared_events(&all_ops, &pt->instance.truth, label, req->iterations, &declared);
		if (req->events[e].period && declared / req->events[e].period > most_expected)
			most_expected = declared / req->events[e].period;
	}
	cfg.expected_samples = most_expected;
	pb_instance_session(&pt->instance, &cfg);
	struct tally tally = {.pt = pt, .nevents = req->nevents};
	for (unsigned e = 0; e < req->nevents; e++)
		tally.spec[e] = &req->events[e].spec;
	tally.machine = req->machine ? req->machine : pb_machine_live();
	cfg.on_record = on_record;
	cfg.record_ctx = &tally;

	pt->session = calloc(1, sizeof *pt->session);
	if (!pt->session) {
		pb_fail(err, PB_EXIT_FAILURE, 0, "out of memory");
		goto fail;
	}
	int rc = pb_session_run(&cfg, pt->session, err);
	if (rc && pt->instance.thread_err.msg[0] && err)
		*err = pt->instance.thread_err;
	/* Figures are summed even on failure: which events opened is part of the answer. */
	sum_figures(req, pt, &tally, rc != 0);
	pt->wall_ns = pt->session->wall_ns;
	for (unsigned th = 0; th < pt->session->threads; th++) {
		pt->elapsed_ns[th] = pt->session->thread[th].elapsed_ns;
		pt->cpu_ns[th] = pt->session->thread[th].cpu_ns;
		pt->unpinned_threads += !pt->session->thread[th].pinned;
	}
	if (rc)
		goto fail;
	return 0;
fail:
	pb_point_free(pt);
	return -1;
}

void pb_point_free(struct pb_point *pt)
{
	pb_instance_free(&pt->instance);
	free(pt->session);
	pt->session = NULL;
	pb_code_map_free(&pt->code);
	free(pt->insn_samples);
	free(pt->insn_samples_before);
	pt->insn_samples = pt->insn_samples_before = NULL;
}

static json_t *figures_json(const struct pb_point_request *req, unsigned e,
			    const struct pb_point_figures *f)
{
	json_t *o = json_pack("{s:s, s:I, s:s, s:I, s:f, s:I, s:I}", "facility",
			      req->events[e].spec.text, "period", (json_int_t)req->events[e].period,
			      "basis", f->basis, "declared_events", (json_int_t)f->declared,
			      "expected", f->expected, "observed", (json_int_t)f->observed, "count",
			      (json_int_t)f->count);
	json_object_set_new(o, "accuracy", isnan(f->accuracy) ? json_null()
							      : json_real(f->accuracy));
	json_object_set_new(o, "lost", json_integer((json_int_t)f->lost));
	json_object_set_new(o, "lost_format", json_integer((json_int_t)f->lost_format));
	json_object_set_new(o, "lost_records", json_integer((json_int_t)f->lost_records));
	json_object_set_new(o, "lost_samples", json_integer((json_int_t)f->lost_samples));
	json_object_set_new(o, "filtered", json_integer((json_int_t)f->filtered));
	json_object_set_new(o, "dropped", json_integer((json_int_t)f->dropped));
	if (req->events[e].spec.facility->time_based)
		json_object_set_new(o, "missed_ticks", json_integer((json_int_t)f->missed));
	json_object_set_new(o, "throttles", json_integer((json_int_t)f->throttles));
	json_object_set_new(o, "unthrottles", json_integer((json_int_t)f->unthrottles));
	json_object_set_new(o, "time_enabled", json_integer((json_int_t)f->time_enabled));
	json_object_set_new(o, "time_running", json_integer((json_int_t)f->time_running));
	json_object_set_new(o, "running_ratio",
			    json_real(f->time_enabled ? (double)f->time_running /
							  (double)f->time_enabled : 1.0));
	json_object_set_new(o, "multiplexed", json_boolean(f->time_running < f->time_enabled));
	json_object_set_new(o, "signals", json_integer((json_int_t)f->signals));
	json_object_set_new(o, "signals_wrong_thread",
			    json_integer((json_int_t)f->signals_wrong_thread));
	json_object_set_new(o, "user_samples", json_integer((json_int_t)f->user_samples));
	json_object_set_new(o, "kernel_samples", json_integer((json_int_t)f->kernel_samples));
	json_object_set_new(o, "kernel_ip_samples",
			    json_integer((json_int_t)f->kernel_ip_samples));
	json_object_set_new(o, "ring_pages", json_integer(f->ring_pages));
	if (req->events[e].spec.subset)
		json_object_set_new(o, "ibs_ops_sampled", json_integer((json_int_t)f->ibs_ops_sampled));
	if (req->events[e].spec.facility->aux_pages) {
		json_object_set_new(o, "aux_truncated", json_integer((json_int_t)f->aux_truncated));
		json_object_set_new(o, "aux_collision", json_integer((json_int_t)f->aux_collision));
	}
	/* a precise level the machine could not give is never lowered silently */
	if (f->precise_requested > 0 || f->precise_granted > 0) {
		json_object_set_new(o, "precise_requested", f->precise_requested > 0
					    ? json_integer(f->precise_requested) : json_null());
		json_object_set_new(o, "precise_granted", json_integer(f->precise_granted));
		json_object_set_new(o, "precise_lowered",
				    json_boolean(f->precise_requested > f->precise_granted));
	}
	json_object_set_new(o, "no_samples", json_boolean(f->no_samples));
	if (f->no_samples) {
		char note[160];
		snprintf(note, sizeof note, "%.1f samples expected and none arrived: the facility "
			 "produced nothing, so no accuracy is given", f->expected);
		json_object_set_new(o, "note", json_string(note));
	}
	json_object_set_new(o, "opened", json_boolean(f->opened_all));
	if (!f->opened_all)
		json_object_set_new(o, "open_error", json_string(f->open_error));
	return o;
}

json_t *pb_point_json(const struct pb_point_request *req, const struct pb_point *pt)
{
	char params[256];
	pb_workload_params_text(&req->workload, params, sizeof params);
	json_t *o = json_pack("{s:s, s:s, s:I, s:i, s:s, s:I}", "workload",
			      req->workload.workload->name, "params", params, "iterations",
			      (json_int_t)req->iterations, "threads", (int)req->threads, "delivery",
			      pb_delivery_name(req->delivery), "wall_ns", (json_int_t)pt->wall_ns);
	json_t *elapsed = json_array();
	for (unsigned t = 0; t < req->threads; t++)
		json_array_append_new(elapsed, json_integer((json_int_t)pt->elapsed_ns[t]));
	json_object_set_new(o, "elapsed_ns", elapsed);
	json_t *cpu = json_array();
	for (unsigned t = 0; t < req->threads; t++)
		json_array_append_new(cpu, json_integer((json_int_t)pt->cpu_ns[t]));
	json_object_set_new(o, "cpu_ns", cpu);
	/* Threads that ran where the scheduler put them: their timings and any per-CPU figure
	 * are not those of the CPUs asked for. */
	json_object_set_new(o, "unpinned_threads", json_integer(pt->unpinned_threads));
	if (pt->label >= 0)
		json_object_set_new(o, "label",
				    json_string(pt->instance.truth.labels[pt->label].name));
	json_t *events = json_array();
	for (unsigned e = 0; e < req->nevents; e++)
		json_array_append_new(events, figures_json(req, e, &pt->ev[e]));
	json_object_set_new(o, "events", events);
	return o;
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
	fprintf(out, "%-18s %10s %10s %12s %12s %9s %8s %8s %8s %7s\n", "facility", "period",
		"basis", "expected", "observed", "accuracy", "lost", "throttle", "signals",
		"run/en");
	for (unsigned e = 0; e < req->nevents; e++) {
		const struct pb_point_figures *f = &pt->ev[e];
		char accuracy[16];
		if (f->no_samples)
			snprintf(accuracy, sizeof accuracy, "NO SAMPLES");
		else
			snprintf(accuracy, sizeof accuracy, "%8.3f%%", f->accuracy);
		fprintf(out, "%-18s %10llu %10s %12.1f %12llu %9s %8llu %8llu %8llu %7.3f\n",
			req->events[e].spec.text, (unsigned long long)req->events[e].period,
			f->basis, f->expected, (unsigned long long)f->observed, accuracy,
			(unsigned long long)f->lost, (unsigned long long)f->throttles,
			(unsigned long long)f->signals,
			f->time_enabled ? (double)f->time_running / (double)f->time_enabled : 1.0);
		fprintf(out, "%-18s count %llu", "", (unsigned long long)f->count);
		if (!strcmp(f->basis, "declared"))
			fprintf(out, " (declared %llu per thread)", (unsigned long long)f->declared);
		if (req->events[e].spec.subset)
			fprintf(out, "; observed: the subset's samples among %llu op samples",
				(unsigned long long)f->ibs_ops_sampled);
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
		fprintf(out, "\n");
	}
}
