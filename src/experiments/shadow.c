/* Shadow (Yi et al.): after a sampling facility is triggered it cannot take another sample for
 * a while — the shadow — so of several adjacent events, the one after a long gap collects the
 * samples. We run the shadow workload, four identical events (loads of one word by default;
 * jumps or clflushed loads for branch and miss events) each followed by `gap` nops, for gaps
 * 0, 1, 2, 4, 8 and 16, and per gap measure how the samples spread over the four event
 * instructions: their shares among the samples that landed on the four (attributed at the IP
 * and, IP+1-corrected, to the instruction before it), the largest deviation from the uniform
 * 25 %, and the total variation distance from uniform, TV = ½ Σ |share_i − 25 %| (in
 * percentage points; 0 is uniform, 75 is every sample on one event). A gap is "uniform" when
 * the largest deviation of the runs' pooled shares is within the tolerance: 2 pp, or three
 * binomial standard deviations of a 25 % share over the pooled samples when that is larger;
 * with fewer than 100 samples on the four events a gap gets no verdict.
 * The shadow length is the smallest gap that is uniform and stays uniform at every larger gap
 * measured, in instructions (the event plus its nops) and in TSC cycles (rdtsc around the loop
 * without perf: cycles per iteration / 4, a quarter of the loop's dec/jnz included). The
 * remedy's cost is the run time of that padding against no padding, from the same rdtsc runs.
 * Timer sampling has no PMU shadow: with it this measures where timer interrupts land, and the
 * results say so. */
#include "experiments/experiment.h"
#include "experiments/plan.h"
#include "util/kit.h"
#include "workloads/workload.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

static const unsigned gaps[] = {0, 1, 2, 4, 8, 16};
#define NGAPS (PB_ARRAY_SIZE(gaps))
#define BASE_TOLERANCE_PP 2.0
/* Fewer samples on the four events than this leave a gap without a verdict. */
#define MIN_EVENT_SAMPLES 100

/* The loop kind whose events the facility's event counts. */
static const char *shadow_kind(const struct pb_spec *spec)
{
	if (strcasestr(spec->event, "miss"))
		return "misses";
	if (strcasestr(spec->event, "br") || strcasestr(spec->event, "branch"))
		return "branches";
	return "loads";
}

static uint64_t shadow_period(const struct pb_suite_options *o, const struct pb_spec *spec)
{
	if (o->nperiods)
		return o->periods[0];
	/* Exact facilities: a prime period, so the sampled event walks over the four. */
	return spec->facility->exact ? 7 : pb_plan_accuracy_period(spec);
}

static unsigned shadow_plan(const struct pb_suite_options *o, const char *facility)
{
	char buf[64];
	const char *why;
	return pb_plan_spread_facility(facility, buf, sizeof buf, &why) ? (unsigned)NGAPS * o->runs : 0;
}

/* Where the four events are in a run's attribution, and their samples. */
struct four {
	uint64_t at[4], before[4];
	uint64_t total;
	char label[4][64];
	char insn[4][56];
};

static void count_four(const struct pb_point *pt, struct four *f)
{
	memset(f, 0, sizeof *f);
	f->total = pt->ev[0].observed;
	const struct pb_truth *truth = &pt->instance.truth;
	for (size_t i = 0; i < pt->code.n; i++) {
		int l = pt->code.insns[i].label;
		if (l < 0)
			continue;
		const char *ev = strstr(truth->labels[l].name, "_ev");
		if (!ev || ev[3] < '1' || ev[3] > '4')
			continue;
		int k = ev[3] - '1';
		f->at[k] += pt->insn_samples[i];
		f->before[k] += pt->insn_samples_before[i];
		snprintf(f->label[k], sizeof f->label[k], "%s", truth->labels[l].name);
		snprintf(f->insn[k], sizeof f->insn[k], "%s", pt->code.insns[i].text);
	}
}

/* Shares of the four among themselves (pp), largest deviation from 25 % and TV distance. */
static void distance(const uint64_t *c, double *share, double *max_dev, double *tv)
{
	uint64_t sum = c[0] + c[1] + c[2] + c[3];
	*max_dev = *tv = 0;
	for (int i = 0; i < 4; i++) {
		share[i] = sum ? 100.0 * (double)c[i] / (double)sum : 0;
		double d = fabs(share[i] - 25.0);
		*tv += d / 2;
		if (d > *max_dev)
			*max_dev = d;
	}
	if (!sum)
		*max_dev = *tv = NAN;
}

static json_t *shares_json(const double *s)
{
	return json_pack("[f, f, f, f]", s[0], s[1], s[2], s[3]);
}

static json_t *counts_json(const uint64_t *c)
{
	return json_pack("[I, I, I, I]", (json_int_t)c[0], (json_int_t)c[1], (json_int_t)c[2],
			 (json_int_t)c[3]);
}

struct pooled {
	struct four sum;
};

static void attribute_run(void *ctx, const struct pb_point *pt, json_t *run)
{
	struct pooled *p = ctx;
	struct four f;
	count_four(pt, &f);
	double s_at[4], s_before[4], dev_at, dev_before, tv_at, tv_before;
	distance(f.at, s_at, &dev_at, &tv_at);
	distance(f.before, s_before, &dev_before, &tv_before);
	uint64_t on_at = f.at[0] + f.at[1] + f.at[2] + f.at[3];
	uint64_t on_before = f.before[0] + f.before[1] + f.before[2] + f.before[3];
	json_t *a = json_object();
	json_object_set_new(a, "samples", json_integer((json_int_t)f.total));
	json_object_set_new(a, "events_at_ip", counts_json(f.at));
	json_object_set_new(a, "events_before_ip", counts_json(f.before));
	json_object_set_new(a, "other_at_ip", json_integer((json_int_t)(f.total - on_at)));
	json_object_set_new(a, "other_before_ip", json_integer((json_int_t)(f.total - on_before)));
	json_object_set_new(a, "outside_code", json_integer((json_int_t)pt->outside_samples));
	json_object_set_new(a, "share_at_ip", shares_json(s_at));
	json_object_set_new(a, "share_before_ip", shares_json(s_before));
	json_object_set_new(a, "max_deviation_at_ip", json_real(on_at ? dev_at : 0));
	json_object_set_new(a, "max_deviation_before_ip", json_real(on_before ? dev_before : 0));
	json_object_set_new(a, "tv_at_ip", json_real(on_at ? tv_at : 0));
	json_object_set_new(a, "tv_before_ip", json_real(on_before ? tv_before : 0));
	json_object_set_new(run, "attribution", a);
	for (int i = 0; i < 4; i++) {
		p->sum.at[i] += f.at[i];
		p->sum.before[i] += f.before[i];
	}
	p->sum.total += f.total;
	memcpy(p->sum.label, f.label, sizeof f.label);
	memcpy(p->sum.insn, f.insn, sizeof f.insn);
}

/* Pooled shares per event in the bias experiment's form (the end-of-suite table reads it). */
static json_t *pooled_shares(const struct four *f)
{
	double at[4], before[4], dev, tv;
	distance(f->at, at, &dev, &tv);
	distance(f->before, before, &dev, &tv);
	json_t *a = json_array();
	for (int i = 0; i < 4; i++)
		json_array_append_new(a, json_pack("{s:s, s:s, s:f, s:f, s:I, s:I}", "label",
						   f->label[i], "insn", f->insn[i], "share_at_ip",
						   at[i], "share_before_ip", before[i], "at_ip",
						   (json_int_t)f->at[i], "before_ip",
						   (json_int_t)f->before[i]));
	return a;
}

/* The timestamp counter, ordered against the loop it brackets: the TSC on x86; on arm64 the
 * generic timer's virtual count (CNTVCT_EL0, at CNTFRQ_EL0: ticks of a fixed-frequency clock,
 * not core cycles — the "tsc" fields then count those ticks; timestamp_counter names which). */
#if defined(__x86_64__)
#define TIMESTAMP_COUNTER "rdtsc"
static inline uint64_t timestamp(void)
{
	_mm_lfence();
	uint64_t t = __rdtsc();
	_mm_lfence();
	return t;
}
#elif defined(__aarch64__)
#define TIMESTAMP_COUNTER "cntvct_el0"
static inline uint64_t timestamp(void)
{
	uint64_t t;
	__asm__ volatile("isb\n\tmrs %0, cntvct_el0\n\tisb" : "=r"(t) : : "memory");
	return t;
}
#else
#error "shadow: no timestamp counter for this architecture"
#endif

/* TSC cycles and ns per iteration of the loop without perf: the least of 15 runs of about
 * 0.5 ms each. The least, because interference only adds; short, so that most runs fit
 * between two preemptions on a busy machine. */
static int loop_cost(const char *workload, double *tsc, double *ns, struct pb_error *err)
{
	struct pb_workload_choice ch;
	if (pb_workload_parse(workload, &ch, err))
		return -1;
	const struct pb_workload *w = ch.workload;
	void *state = calloc(1, w->state_size ? w->state_size : 1);
	struct pb_target target = {0};
	if (!state)
		return pb_fail(err, PB_EXIT_FAILURE, 0, "out of memory");
	if (w->setup && w->setup(state, ch.params, &target, err)) {
		free(state);
		return -1;
	}
	uint64_t iterations = 100000;
	*tsc = *ns = INFINITY;
	for (int r = 0; r < 16; r++) {
		uint64_t a = pb_now_ns();
		uint64_t t0 = timestamp();
		w->run(state, ch.params, iterations);
		uint64_t t1 = timestamp();
		double elapsed = (double)(pb_now_ns() - a);
		if (r == 0) {
			/* a warm-up that also sizes the measured runs */
			double per = elapsed / (double)iterations;
			iterations = (uint64_t)(5e5 / (per > 0.1 ? per : 0.1)) + 1;
			continue;
		}
		double t = (double)(t1 - t0) / (double)iterations, n = elapsed / (double)iterations;
		if (t < *tsc)
			*tsc = t;
		if (n < *ns)
			*ns = n;
	}
	if (w->teardown)
		w->teardown(state);
	free(state);
	return 0;
}

static int shadow_run(const struct pb_suite_options *o, const char *facility,
		      struct pb_results *res, struct pb_error *err)
{
	char buf[64];
	const char *why = NULL;
	const char *spec_text = pb_plan_spread_facility(facility, buf, sizeof buf, &why);
	if (!spec_text) {
		pb_not_applicable(res, "shadow", facility, why);
		return 0;
	}
	struct pb_spec spec;
	if (pb_spec_parse(spec_text, &spec, err))
		return -1;
	bool timer = spec.facility->time_based;
	const char *kind = shadow_kind(&spec);
	uint64_t period = shadow_period(o, &spec);
	/* The attribution that is the facility's own (as in the bias experiment). */
	bool use_before = pb_spec_ip_kind(o->machine, &spec) == PB_IP_NEXT;
	double max_dev[NGAPS], tv[NGAPS], tol[NGAPS], tsc[NGAPS], ns[NGAPS];
	bool uniform[NGAPS], measured[NGAPS];
	for (size_t g = 0; g < NGAPS; g++) {
		char workload[64];
		snprintf(workload, sizeof workload, "shadow:kind=%s,gap=%u", kind, gaps[g]);
		measured[g] = false;
		if (loop_cost(workload, &tsc[g], &ns[g], err))
			return -1;
		struct pb_point_request req;
		if (pb_plan_request(&req, spec_text, workload, period, 1, o->delivery, err))
			return -1;
		req.machine = o->machine;
		req.attribute = true;
		req.iterations = pb_calibrate_iterations(&req.workload, &req.events[0].spec,
							 o->target_ms, err);
		if (!req.iterations)
			return -1;
		struct pooled pool = {0};
		json_t *point = pb_measure_runs_with(o, "shadow", &req, res, attribute_run, &pool,
						     err);
		if (!point)
			return -1;
		uint64_t *c = use_before ? pool.sum.before : pool.sum.at;
		uint64_t on = c[0] + c[1] + c[2] + c[3];
		double share[4], dev, d_tv;
		distance(c, share, &dev, &d_tv);
		tol[g] = BASE_TOLERANCE_PP;
		if (on) {
			double noise = 3 * 100 * sqrt(0.25 * 0.75 / (double)on);
			if (noise > tol[g])
				tol[g] = noise;
		}
		max_dev[g] = on ? dev : NAN;
		tv[g] = on ? d_tv : NAN;
		measured[g] = on >= MIN_EVENT_SAMPLES;
		uniform[g] = measured[g] && dev <= tol[g];
		json_t *m = json_object_get(point, "metrics");
		json_object_set_new(m, "attribution",
				    json_string(use_before ? "before_ip" : "at_ip"));
		json_object_set_new(m, "pooled_event_samples", json_integer((json_int_t)on));
		json_object_set_new(m, "shares", pooled_shares(&pool.sum));
		if (on) {
			json_object_set_new(m, "max_deviation", json_real(dev));
			json_object_set_new(m, "tv_distance", json_real(d_tv));
		}
		json_object_set_new(m, "tolerance_pp", json_real(tol[g]));
		json_object_set_new(m, "uniform", json_boolean(uniform[g]));
		json_object_set_new(m, "verdict",
				    json_string(!measured[g] ? "too few samples on the four events"
						: uniform[g] ? "uniform" : "biased"));
		json_object_set_new(m, "tsc_per_iteration", json_real(tsc[g]));
		json_object_set_new(m, "ns_per_iteration", json_real(ns[g]));
		char variant[48];
		snprintf(variant, sizeof variant, "%s gap=%u", kind, gaps[g]);
		json_object_set_new(point, "variant", json_string(variant));
		json_object_set_new(point, "padding", json_integer(gaps[g]));
		json_object_set_new(point, "kind", json_string(kind));
		json_object_set_new(point, "ip_kind",
				    json_string(pb_ip_kind_name(pb_spec_ip_kind(o->machine, &spec))));
		if (timer)
			json_object_set_new(point, "note",
					    json_string("timer sampling: measures interrupt "
							"attribution, not a PMU shadow"));
		if (pb_suite_interrupted(o, err))
			return -1;
	}
	/* The shadow: the smallest gap from which every measured gap is uniform. */
	long shadow = -1;
	for (size_t g = NGAPS; g-- > 0;) {
		if (!measured[g] || !uniform[g])
			break;
		shadow = (long)g;
	}
	json_t *p = pb_results_point(res, "shadow", facility, NULL);
	json_t *summary = json_object();
	json_t *rows = json_array();
	for (size_t g = 0; g < NGAPS; g++)
		json_array_append_new(
			rows, json_pack("{s:i, s:o, s:o, s:f, s:b, s:f, s:f, s:f, s:f}", "gap",
					(int)gaps[g], "max_deviation",
					isnan(max_dev[g]) ? json_null() : json_real(max_dev[g]),
					"tv_distance", isnan(tv[g]) ? json_null() : json_real(tv[g]),
					"tolerance_pp", tol[g], "uniform", uniform[g],
					"tsc_per_iteration", tsc[g], "tsc_per_event_slot", tsc[g] / 4,
					"ns_per_iteration", ns[g], "cost_percent",
					tsc[0] > 0 ? 100.0 * (tsc[g] / tsc[0] - 1) : 0.0));
	json_object_set_new(summary, "gaps", rows);
	json_object_set_new(summary, "kind", json_string(kind));
	json_object_set_new(summary, "timestamp_counter", json_string(TIMESTAMP_COUNTER));
	json_object_set_new(summary, "attribution", json_string(use_before ? "before_ip" : "at_ip"));
	json_object_set_new(summary, "uniformity_rule",
			    json_string("largest deviation of the pooled shares of the four events "
					"from 25 % <= max(2 pp, 3 binomial standard deviations)"));
	if (shadow >= 0) {
		json_object_set_new(summary, "shadow_gap_nops", json_integer(gaps[shadow]));
		json_object_set_new(summary, "shadow_length_instructions",
				    json_integer(gaps[shadow] + 1));
		json_object_set_new(summary, "shadow_length_tsc_cycles", json_real(tsc[shadow] / 4));
		json_object_set_new(summary, "no_shadow", json_boolean(gaps[shadow] == 0));
		json_object_set_new(summary, "remedy_cost_percent",
				    json_real(tsc[0] > 0 ? 100.0 * (tsc[shadow] / tsc[0] - 1) : 0));
	} else {
		json_object_set_new(summary, "shadow_gap_nops", json_null());
		char text[96];
		snprintf(text, sizeof text,
			 measured[NGAPS - 1]
				 ? "not uniform up to the largest gap measured (%u nops)"
				 : "undetermined: too few samples on the events at %u nops",
			 gaps[NGAPS - 1]);
		json_object_set_new(summary, "shadow_result", json_string(text));
	}
	if (timer)
		json_object_set_new(summary, "note",
				    json_string("timer sampling: measures interrupt attribution, "
						"not a PMU shadow"));
	json_object_set_new(p, "summary", summary);
	json_object_set_new(p, "variant", json_string(shadow >= 0 ? "shadow summary"
								  : "shadow summary: no uniform gap"));
	return 0;
}

const struct pb_experiment pb_experiment_shadow = {
	.name = "shadow",
	.summary = "share of samples per adjacent event vs nop padding: shadow length, remedy cost",
	.run = shadow_run,
	.plan = shadow_plan,
};
