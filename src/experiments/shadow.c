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
#include "experiments/suite_defaults.h"
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
	return spec->facility->exact ? 7 : pb_suite_accuracy_period(spec);
}

static unsigned shadow_count_runs(const struct pb_suite_options *o, const struct pb_spec *asked)
{
	struct pb_spec spread;
	const char *why;
	return pb_spec_spread_parsed(asked, &spread, &why) ? 0 : (unsigned)NGAPS * o->runs;
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

static void shares_list(struct pb_rset *s, const char *name, const double *v)
{
	struct pb_rlist *l = pb_rset_list(s, name);
	for (int i = 0; i < 4; i++)
		pb_rlist_real(l, PB_UNIT_PERCENT, v[i]);
}

static void counts_list(struct pb_rset *s, const char *name, const uint64_t *c)
{
	struct pb_rlist *l = pb_rset_list(s, name);
	for (int i = 0; i < 4; i++)
		pb_rlist_int(l, PB_UNIT_SAMPLES, (int64_t)c[i]);
}

struct pooled {
	struct four sum;
};

static void attribute_run(void *ctx, const struct pb_point *pt, struct pb_rset *run)
{
	struct pooled *p = ctx;
	struct four f;
	count_four(pt, &f);
	double s_at[4], s_before[4], dev_at, dev_before, tv_at, tv_before;
	distance(f.at, s_at, &dev_at, &tv_at);
	distance(f.before, s_before, &dev_before, &tv_before);
	uint64_t on_at = f.at[0] + f.at[1] + f.at[2] + f.at[3];
	uint64_t on_before = f.before[0] + f.before[1] + f.before[2] + f.before[3];
	struct pb_rset *a = pb_rset_set(run, "attribution");
	pb_rset_int(a, "samples", PB_UNIT_SAMPLES, (int64_t)f.total);
	counts_list(a, "events_at_ip", f.at);
	counts_list(a, "events_before_ip", f.before);
	pb_rset_int(a, "other_at_ip", PB_UNIT_SAMPLES, (int64_t)(f.total - on_at));
	pb_rset_int(a, "other_before_ip", PB_UNIT_SAMPLES, (int64_t)(f.total - on_before));
	pb_rset_int(a, "outside_code", PB_UNIT_SAMPLES, (int64_t)pt->outside_samples);
	shares_list(a, "share_at_ip", s_at);
	shares_list(a, "share_before_ip", s_before);
	pb_rset_real(a, "max_deviation_at_ip", PB_UNIT_PERCENT_POINTS, on_at ? dev_at : 0);
	pb_rset_real(a, "max_deviation_before_ip", PB_UNIT_PERCENT_POINTS,
		     on_before ? dev_before : 0);
	pb_rset_real(a, "tv_at_ip", PB_UNIT_PERCENT_POINTS, on_at ? tv_at : 0);
	pb_rset_real(a, "tv_before_ip", PB_UNIT_PERCENT_POINTS, on_before ? tv_before : 0);
	for (int i = 0; i < 4; i++) {
		p->sum.at[i] += f.at[i];
		p->sum.before[i] += f.before[i];
	}
	p->sum.total += f.total;
	memcpy(p->sum.label, f.label, sizeof f.label);
	memcpy(p->sum.insn, f.insn, sizeof f.insn);
}

/* Pooled shares per event in the bias experiment's form (the end-of-suite table reads it). */
static void pooled_shares(struct pb_rlist *a, const struct four *f)
{
	double at[4], before[4], dev, tv;
	distance(f->at, at, &dev, &tv);
	distance(f->before, before, &dev, &tv);
	for (int i = 0; i < 4; i++) {
		struct pb_rset *s = pb_rlist_set(a);
		pb_rset_text(s, "label", f->label[i]);
		pb_rset_text(s, "insn", f->insn[i]);
		pb_rset_real(s, "share_at_ip", PB_UNIT_PERCENT, at[i]);
		pb_rset_real(s, "share_before_ip", PB_UNIT_PERCENT, before[i]);
		pb_rset_int(s, "at_ip", PB_UNIT_SAMPLES, (int64_t)f->at[i]);
		pb_rset_int(s, "before_ip", PB_UNIT_SAMPLES, (int64_t)f->before[i]);
	}
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
#elif defined(__riscv)
/* rdtime: the platform's fixed-frequency timer (QEMU virt: 10 MHz), not core cycles. */
#define TIMESTAMP_COUNTER "rdtime"
static inline uint64_t timestamp(void)
{
	uint64_t t;
	__asm__ volatile("fence rw, rw\n\trdtime %0\n\tfence rw, rw" : "=r"(t) : : "memory");
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

static int shadow_run(const struct pb_suite_options *o, const struct pb_spec *asked,
		      struct pb_results *res, struct pb_error *err)
{
	const char *facility = asked->text;
	const char *why = NULL;
	struct pb_spec spec;
	if (pb_spec_spread_parsed(asked, &spec, &why)) {
		pb_not_applicable(res, "shadow", facility, why);
		return 0;
	}
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
		if (pb_suite_request(&req, &spec, workload, period, 1, o->delivery, err))
			return -1;
		req.machine = o->machine;
		req.attribute = true;
		req.iterations = pb_calibrate_iterations(&req.workload, &req.events[0].spec,
							 o->target_ms, err);
		if (!req.iterations)
			return -1;
		struct pooled pool = {0};
		struct pb_result_point *point = pb_measure_runs_with(o, "shadow", &req, res,
								     attribute_run, &pool, err);
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
		struct pb_rset *m = &point->metrics;
		pb_rset_text(m, "attribution", use_before ? "before_ip" : "at_ip");
		pb_rset_int(m, "pooled_event_samples", PB_UNIT_SAMPLES, (int64_t)on);
		pooled_shares(pb_rset_list(m, "shares"), &pool.sum);
		if (on) {
			pb_rset_real(m, "max_deviation", PB_UNIT_PERCENT_POINTS, dev);
			pb_rset_real(m, "tv_distance", PB_UNIT_PERCENT_POINTS, d_tv);
		}
		pb_rset_real(m, "tolerance_pp", PB_UNIT_PERCENT_POINTS, tol[g]);
		pb_rset_bool(m, "uniform", uniform[g]);
		pb_rset_text(m, "verdict", !measured[g] ? "too few samples on the four events"
					   : uniform[g] ? "uniform" : "biased");
		pb_rset_real(m, "tsc_per_iteration", PB_UNIT_TSC, tsc[g]);
		pb_rset_real(m, "ns_per_iteration", PB_UNIT_NS, ns[g]);
		char variant[48];
		snprintf(variant, sizeof variant, "%s gap=%u", kind, gaps[g]);
		struct pb_rset *par = &point->params;
		pb_rset_text(par, "variant", variant);
		pb_rset_int(par, "padding", PB_UNIT_INSTRUCTIONS, gaps[g]);
		pb_rset_text(par, "kind", kind);
		pb_rset_text(par, "ip_kind", pb_ip_kind_name(pb_spec_ip_kind(o->machine, &spec)));
		if (timer)
			pb_rset_text(par, "note", "timer sampling: measures interrupt attribution, "
						  "not a PMU shadow");
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
	struct pb_result_point *p = pb_results_point(res, "shadow", facility, NULL);
	struct pb_rset *summary = pb_rset_set(&p->params, "summary");
	struct pb_rlist *rows = pb_rset_list(summary, "gaps");
	for (size_t g = 0; g < NGAPS; g++) {
		double cost = tsc[0] > 0 ? 100.0 * (tsc[g] / tsc[0] - 1) : 0.0;
		/* a row with a figure that is no number is no row (as the /1 writer had it) */
		if (!isfinite(tol[g]) || !isfinite(tsc[g]) || !isfinite(ns[g]) || !isfinite(cost))
			continue;
		struct pb_rset *row = pb_rlist_set(rows);
		pb_rset_int(row, "gap", PB_UNIT_INSTRUCTIONS, gaps[g]);
		pb_rset_real_or_null(row, "max_deviation", PB_UNIT_PERCENT_POINTS, max_dev[g]);
		pb_rset_real_or_null(row, "tv_distance", PB_UNIT_PERCENT_POINTS, tv[g]);
		pb_rset_real(row, "tolerance_pp", PB_UNIT_PERCENT_POINTS, tol[g]);
		pb_rset_bool(row, "uniform", uniform[g]);
		pb_rset_real(row, "tsc_per_iteration", PB_UNIT_TSC, tsc[g]);
		pb_rset_real(row, "tsc_per_event_slot", PB_UNIT_TSC, tsc[g] / 4);
		pb_rset_real(row, "ns_per_iteration", PB_UNIT_NS, ns[g]);
		pb_rset_real(row, "cost_percent", PB_UNIT_PERCENT, cost);
	}
	pb_rset_text(summary, "kind", kind);
	pb_rset_text(summary, "timestamp_counter", TIMESTAMP_COUNTER);
	pb_rset_text(summary, "attribution", use_before ? "before_ip" : "at_ip");
	pb_rset_text(summary, "uniformity_rule",
		     "largest deviation of the pooled shares of the four events from 25 % <= "
		     "max(2 pp, 3 binomial standard deviations)");
	if (shadow >= 0) {
		pb_rset_int(summary, "shadow_gap_nops", PB_UNIT_INSTRUCTIONS, gaps[shadow]);
		pb_rset_int(summary, "shadow_length_instructions", PB_UNIT_INSTRUCTIONS,
			    gaps[shadow] + 1);
		pb_rset_real(summary, "shadow_length_tsc_cycles", PB_UNIT_TSC, tsc[shadow] / 4);
		pb_rset_bool(summary, "no_shadow", gaps[shadow] == 0);
		pb_rset_real(summary, "remedy_cost_percent", PB_UNIT_PERCENT,
			     tsc[0] > 0 ? 100.0 * (tsc[shadow] / tsc[0] - 1) : 0);
	} else {
		pb_rset_null(summary, "shadow_gap_nops", PB_UNIT_INSTRUCTIONS);
		char text[96];
		snprintf(text, sizeof text,
			 measured[NGAPS - 1]
				 ? "not uniform up to the largest gap measured (%u nops)"
				 : "undetermined: too few samples on the events at %u nops",
			 gaps[NGAPS - 1]);
		pb_rset_text(summary, "shadow_result", text);
	}
	if (timer)
		pb_rset_text(summary, "note",
			     "timer sampling: measures interrupt attribution, not a PMU shadow");
	pb_rset_text(&p->params, "variant",
		     shadow >= 0 ? "shadow summary" : "shadow summary: no uniform gap");
	return 0;
}

const struct pb_experiment pb_experiment_shadow = {
	.name = "shadow",
	.summary = "share of samples per adjacent event vs nop padding: shadow length, remedy cost",
	.run = shadow_run,
	.count_runs = shadow_count_runs,
};
