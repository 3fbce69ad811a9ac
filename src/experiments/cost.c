/* Cost of one sample (Akiyama & Hirofuchi, 4.2) and prediction (4.4-4.5). The facility samples
 * a workload with (almost) no data traffic — the register-only busy loop — over a sweep of
 * periods, single-threaded, separately per delivery mode; the least-squares slope of elapsed
 * time against samples taken is the cost of one sample (ns), with R² and the 95 % confidence
 * interval of the slope. For timers the period is ns of the thread's time, so the samples follow
 * from run time / period; for exact facilities it is events per sample, and the number of
 * events is fixed by the iterations. Breakpoints and uprobes need a target the busy loop does
 * not offer or that would make them a different probe: a data breakpoint watches the data of its
 * natural workload (bp:w the mix loop's counter, bp:rw the bias word, bp:x the chase's labelled
 * load) and a uprobe sits on the busy loop's labelled closing branch. Those facilities trap on
 * EVERY event, sampled or not (~10 µs here), so the slope is the cost of a sample on top of the
 * cost of an event: the intercept carries the events' cost, and a counting run (period 0) of the
 * same iterations is the baseline.
 *
 * Prediction then checks the model on other programs: predicted time = baseline (counting run)
 * + cost x samples per thread, against the measured sampled time, at several periods, on 1 and N
 * threads, for another workload of the suite and — for the timer, which can sample any program
 * — for real programs run as given (xz compressing a generated file, python3 running a loop),
 * with the relative error E = (measured - predicted) / predicted. */
#include "experiments/experiment.h"
#include "experiments/plan.h"
#include "experiments/predict.h"

#include "analysis/stats.h"
#include "util/kit.h"
#include "util/text.h"

#include <linux/hw_breakpoint.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_SWEEP_RUNS 2
#define MAX_XY 512

static const enum pb_delivery modes[] = {PB_DELIVERY_NONE, PB_DELIVERY_SIGNAL,
					 PB_DELIVERY_SIGTRAP, PB_DELIVERY_DRAIN};
#define NMODES (PB_ARRAY_SIZE(modes))

static bool is_timer(const struct pb_spec *s)
{
	return s->facility->time_based;
}

static const char *cost_workload(const struct pb_spec *s)
{
	return pb_spec_workload(s, PB_ROLE_COST, NULL);
}

/* Another workload for the prediction; NULL when only the cost workload has the events. */
static const char *predict_workload(const struct pb_spec *s)
{
	return pb_spec_workload(s, PB_ROLE_PREDICT, NULL);
}

static unsigned cost_periods(const struct pb_suite_options *o, const struct pb_spec *s,
			     uint64_t *p)
{
	if (o->nperiods) {
		memcpy(p, o->periods, o->nperiods * sizeof *p);
		return o->nperiods;
	}
	const uint64_t *src = s->facility->periods->cost;
	for (unsigned i = 0; i < 5; i++)
		p[i] = src[i];
	return 5;
}

static unsigned sweep_runs(const struct pb_suite_options *o)
{
	return o->runs < MAX_SWEEP_RUNS ? o->runs : MAX_SWEEP_RUNS;
}

static unsigned cost_plan(const struct pb_suite_options *o, const char *facility)
{
	struct pb_spec s;
	if (pb_spec_parse(facility, &s, NULL))
		return 0;
	uint64_t p[PB_MAX_LIST];
	unsigned np = cost_periods(o, &s, p), r = sweep_runs(o);
	unsigned n = r + NMODES * np * r;
	if (predict_workload(&s))
		n += 2 * (r + 3 * r);
	unsigned rp = o->runs < 2 ? o->runs : 2; /* program runs, see program_runs */
	if (is_timer(&s))
		n += 2 * (rp + 3 * rp);
	return n;
}

/* The runs of one sweep, each tagged with its period (collect tags with period, the one being
 * measured), since rounds and retries need not keep the runs of a period together. */
struct sweep {
	struct pb_xy pt[MAX_XY];
	size_t n;
	uint64_t period;
};

static void collect(void *ctx, const struct pb_point *pt, struct pb_rset *run)
{
	(void)run;
	struct sweep *sw = ctx;
	if (sw->n < MAX_XY)
		sw->pt[sw->n++] = (struct pb_xy){.x = (double)pt->ev[0].observed,
						 .y = (double)pt->wall_ns,
						 .period = sw->period};
}

/* The fit takes the fastest run of each period: on a shared machine contention only ever adds
 * time, so the fastest run is the one closest to the facility's own cost. *points is the number
 * of periods fitted; -1 (fit cleared) when they give no fit. */
static int fit_sweep(const struct sweep *sw, struct pb_fit *fit, size_t *points)
{
	struct pb_xy fast[MAX_XY];
	double x[MAX_XY], y[MAX_XY];
	size_t n = pb_fastest_per_period(sw->pt, sw->n, fast);
	for (size_t i = 0; i < n; i++) {
		x[i] = fast[i].x;
		y[i] = fast[i].y;
	}
	*points = n;
	return pb_linear_fit(x, y, n, fit);
}

static double median_wall(const struct pb_result_point *point)
{
	double v[256];
	size_t n = 0;
	for (size_t i = 0; i < pb_rlist_size(&point->runs) && n < 256; i++)
		v[n++] = (double)pb_rset_get_int(pb_rlist_set_at(&point->runs, i), "wall_ns");
	return pb_median(v, n);
}

struct predict_ctx {
	double baseline_ns, ns_per_sample;
	unsigned threads;
	double errors[256];
	size_t n;
};

static void predict_hook(void *ctx, const struct pb_point *pt, struct pb_rset *run)
{
	struct predict_ctx *pc = ctx;
	double predicted = pb_predict_time_ns(pc->baseline_ns, pc->ns_per_sample,
					      (double)pt->ev[0].observed, pc->threads);
	double e = pb_prediction_error_pct((double)pt->wall_ns, predicted);
	pb_rset_real(run, "predicted_ns", PB_UNIT_NS, predicted);
	pb_rset_real(run, "error_pct", PB_UNIT_PERCENT, e);
	if (pc->n < 256)
		pc->errors[pc->n++] = e;
}

static void error_metrics(struct pb_result_point *point, const double *e, size_t n)
{
	double abs_max = 0;
	for (size_t i = 0; i < n; i++)
		abs_max = fmax(abs_max, fabs(e[i]));
	pb_rset_summarize(&point->metrics, "error_pct", PB_UNIT_PERCENT, e, n);
	pb_rset_real(&point->metrics, "abs_error_max_pct", PB_UNIT_PERCENT, abs_max);
}

/* The fit point of one delivery mode; *fitted says whether fit holds a fit. */
static struct pb_result_point *fit_point(struct pb_results *res, const char *facility,
					 const char *workload, enum pb_delivery mode,
					 const struct sweep *sw, double baseline_ns,
					 struct pb_fit *fit, bool *fitted)
{
	struct pb_result_point *p = pb_results_point(res, "cost", facility, workload);
	pb_rset_text(&p->params, "kind", "fit");
	pb_rset_text(&p->params, "delivery", pb_delivery_name(mode));
	pb_rset_int(&p->params, "threads", PB_UNIT_THREADS, 1);
	pb_rset_text(&p->params, "fit_on", "the fastest run of each period");
	struct pb_rset *m = &p->metrics;
	pb_rset_real(m, "baseline_ns", PB_UNIT_NS, baseline_ns);
	size_t points;
	*fitted = !fit_sweep(sw, fit, &points);
	pb_rset_int(m, "points", PB_UNIT_COUNT, (int64_t)points);
	if (!*fitted) {
		pb_rset_text(&p->params, "error",
			     "no fit: fewer than 3 runs or the same number of samples in every run");
		return p;
	}
	pb_rset_real(m, "ns_per_sample", PB_UNIT_NS_PER_SAMPLE, fit->slope);
	pb_rset_real(m, "ci95_ns", PB_UNIT_NS_PER_SAMPLE, fit->slope_ci95);
	pb_rset_real(m, "r2", PB_UNIT_NONE, fit->r2);
	pb_rset_real(m, "intercept_ns", PB_UNIT_NS, fit->intercept);
	/* Per-sample costs of a few hundred ns under ~10 us traps, or drift between runs, give a
	 * slope that is noise; R² alone can be high on a drift, hence the CI too. Such a fit is
	 * reported but marked unresolved, and nothing is predicted from it. */
	bool resolved = pb_fit_resolved(fit);
	pb_rset_bool(m, "resolved", resolved);
	if (!resolved) {
		char note[320];
		pb_format(note, sizeof note,
			  "per-sample cost not resolved above run-to-run noise (needs slope > 0, "
			  "R² >= %.2g and a 95 %% CI within %.0f %% of the slope): use longer runs "
			  "(--target-ms) or more --runs", PB_FIT_MIN_R2, PB_FIT_MAX_REL_CI * 100);
		pb_rset_text(&p->params, "note", note);
	}
	return p;
}

/* The prediction that an unresolved cost of mode none cannot make: a point saying so, with the
 * fit's figures, instead of predicted times that would only restate the noise. */
static void refuse_prediction(struct pb_results *res, const char *facility, const char *workload,
			      const struct pb_fit *fit)
{
	char note[320];
	pb_format(note, sizeof note,
		  "not predicted: the per-sample cost fit (mode none) did not resolve (R² %.3f, "
		  "slope %.0f ± %.0f ns)", fit->r2, fit->slope, fit->slope_ci95);
	struct pb_result_point *p = pb_results_point(res, "cost", facility, workload);
	pb_rset_text(&p->params, "kind", "prediction");
	/* A string, as every not-applicable point carries its reason there. */
	pb_rset_text(&p->params, "not_applicable", note);
	pb_rset_text(&p->params, "note", note);
}

/* Baseline (counting) and sampled runs of another workload, predicted from ns_per_sample. */
static int predict_workload_runs(const struct pb_suite_options *o, const char *facility,
				 const char *workload, unsigned threads, const uint64_t *periods,
				 unsigned nperiods, double ns_per_sample, struct pb_results *res,
				 struct pb_error *err)
{
	struct pb_point_request req;
	if (pb_plan_request(&req, facility, workload, 0, threads, PB_DELIVERY_NONE, err))
		return -1;
	req.machine = o->machine;
	req.iterations = pb_calibrate_iterations(&req.workload, &req.events[0].spec, o->target_ms,
						 err);
	if (!req.iterations)
		return -1;
	struct pb_result_point *base = pb_measure_runs(o, "cost", &req, res, err);
	if (!base)
		return -1;
	pb_rset_text(&base->params, "kind", "prediction-baseline");
	struct predict_ctx pc = {.baseline_ns = median_wall(base), .ns_per_sample = ns_per_sample,
				 .threads = threads};
	for (unsigned i = 0; i < nperiods; i++) {
		req.period = req.events[0].period = periods[i];
		pc.n = 0;
		struct pb_result_point *p =
			pb_measure_runs_with(o, "cost", &req, res, predict_hook, &pc, err);
		if (!p)
			return -1;
		pb_rset_text(&p->params, "kind", "prediction");
		pb_rset_real(&p->params, "baseline_ns", PB_UNIT_NS, pc.baseline_ns);
		pb_rset_real(&p->params, "ns_per_sample", PB_UNIT_NS_PER_SAMPLE, ns_per_sample);
		error_metrics(p, pc.errors, pc.n);
	}
	return 0;
}

/* A compressible file of pseudo-words, the same every time: xz's input. */
static int make_input(char *path, size_t len, size_t bytes, struct pb_error *err)
{
	pb_format(path, len, "/tmp/pesbench-cost-XXXXXX");
	int fd = mkstemp(path);
	if (fd < 0)
		return pb_fail(err, PB_EXIT_FAILURE, 0, "cannot create a scratch file in /tmp");
	FILE *f = fdopen(fd, "w");
	static const char *const words[] = {"sample", "period", "event", "buffer", "signal",
					    "thread", "kernel", "ring", "cost", "trap",
					    "uprobe", "timer", "loss", "overhead", "pebs"};
	uint64_t x = 88172645463325252ull;
	for (size_t written = 0; f && written < bytes;) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		int n = fprintf(f, "%s%c", words[x % 15], (x >> 20) % 11 ? ' ' : '\n');
		if (n < 0)
			break;
		written += (size_t)n;
	}
	if (!f || fclose(f)) {
		unlink(path);
		return pb_fail(err, PB_EXIT_FAILURE, 0, "cannot write the scratch file %s", path);
	}
	return 0;
}

static bool in_path(const char *prog)
{
	const char *path = getenv("PATH");
	char buf[4096];
	for (const char *p = path; p && *p;) {
		const char *colon = strchr(p, ':');
		size_t n = colon ? (size_t)(colon - p) : strlen(p);
		pb_format(buf, sizeof buf, "%.*s/%s", (int)n, p, prog);
		if (!access(buf, X_OK))
			return true;
		p = colon ? colon + 1 : NULL;
	}
	return false;
}

static int program_runs(const struct pb_suite_options *o, const char *facility,
			const struct pb_spec *spec, char *const *argv, const char *name,
			const uint64_t *periods, unsigned nperiods, double ns_per_sample,
			struct pb_results *res, struct pb_error *err)
{
	/* Programs run for hundreds of ms each: two runs per period in the suite. */
	unsigned nruns = o->runs < 2 ? o->runs : 2;
	double base[256];
	struct pb_result_point *bp = pb_results_point(res, "cost", facility, name);
	pb_rset_text(&bp->params, "kind", "prediction-baseline");
	pb_rset_int(&bp->params, "period", PB_UNIT_NONE, 0);
	pb_rset_int(&bp->params, "threads", PB_UNIT_THREADS, 1);
	for (unsigned r = 0; r < nruns; r++) {
		if (pb_suite_interrupted(o, err))
			return -1;
		if (o->progress) {
			char what[256];
			pb_format(what, sizeof what, "cost %s %s baseline, run %u/%u", facility,
				  name, r + 1, nruns);
			o->progress(o->progress_ctx, what);
		}
		struct pb_program_figures f;
		struct pb_error run_err = {0};
		if (pb_program_measure(argv, NULL, 0, 0, &f, &run_err)) {
			pb_rset_text(&bp->params, "error", run_err.msg);
			return 0;
		}
		base[r] = (double)f.wall_ns;
		struct pb_rset *run = pb_rlist_set(&bp->runs);
		pb_rset_int(run, "run", PB_UNIT_NONE, r);
		pb_rset_int(run, "wall_ns", PB_UNIT_NS, (int64_t)f.wall_ns);
		pb_rset_int(run, "maxrss_kib", PB_UNIT_KIB, (int64_t)f.maxrss_kib);
	}
	double baseline = pb_median(base, nruns);
	pb_rset_real(&bp->metrics, "wall_ns_median", PB_UNIT_NS, baseline);
	for (unsigned i = 0; i < nperiods; i++) {
		struct pb_result_point *p = pb_results_point(res, "cost", facility, name);
		pb_rset_text(&p->params, "kind", "prediction");
		pb_rset_int(&p->params, "period", PB_UNIT_NONE, (int64_t)periods[i]);
		pb_rset_int(&p->params, "threads", PB_UNIT_THREADS, 1);
		pb_rset_real(&p->params, "baseline_ns", PB_UNIT_NS, baseline);
		pb_rset_real(&p->params, "ns_per_sample", PB_UNIT_NS_PER_SAMPLE, ns_per_sample);
		double errors[256];
		size_t ne = 0;
		uint64_t lost = 0;
		for (unsigned r = 0; r < nruns; r++) {
			if (pb_suite_interrupted(o, err))
				return -1;
			if (o->progress) {
				char what[256];
				pb_format(what, sizeof what, "cost %s %s period %llu, run %u/%u",
					  facility, name, (unsigned long long)periods[i], r + 1,
					  nruns);
				o->progress(o->progress_ctx, what);
			}
			struct pb_program_figures f;
			struct pb_error run_err = {0};
			if (pb_program_measure(argv, spec, periods[i], 0, &f, &run_err)) {
				pb_rset_text(&p->params, "error", run_err.msg);
				break;
			}
			double predicted = pb_predict_time_ns(baseline, ns_per_sample,
							      (double)f.samples, 1);
			double e = pb_prediction_error_pct((double)f.wall_ns, predicted);
			errors[ne++] = e;
			lost += f.lost;
			/* a run whose prediction is no number has no row (as /1 had it) */
			if (!isfinite(predicted) || !isfinite(e))
				continue;
			struct pb_rset *run = pb_rlist_set(&p->runs);
			pb_rset_int(run, "run", PB_UNIT_NONE, r);
			pb_rset_int(run, "wall_ns", PB_UNIT_NS, (int64_t)f.wall_ns);
			pb_rset_int(run, "observed", PB_UNIT_SAMPLES, (int64_t)f.samples);
			pb_rset_int(run, "lost", PB_UNIT_SAMPLES, (int64_t)f.lost);
			pb_rset_int(run, "count", PB_UNIT_EVENTS, (int64_t)f.count);
			pb_rset_int(run, "maxrss_kib", PB_UNIT_KIB, (int64_t)f.maxrss_kib);
			pb_rset_real(run, "predicted_ns", PB_UNIT_NS, predicted);
			pb_rset_real(run, "error_pct", PB_UNIT_PERCENT, e);
		}
		pb_rset_int(&p->metrics, "lost_total", PB_UNIT_SAMPLES, (int64_t)lost);
		error_metrics(p, errors, ne);
	}
	return 0;
}

static const char *const program_names[] = {"program:xz -4 -T1 (256 KiB text)",
					     "program:python3 loop 3e5"};

static int real_programs(const struct pb_suite_options *o, const char *facility,
			 const struct pb_spec *spec, double ns_per_sample, struct pb_results *res,
			 struct pb_error *err)
{
	static const uint64_t periods[] = {1000000, 200000, 100000};
	char input[64];
	if (make_input(input, sizeof input, 256u << 10, err))
		return -1;
	char *xz[] = {"xz", "-4", "-T1", "-c", "-k", input, NULL};
	char *py[] = {"python3", "-c", "s = 0\nfor i in range(300000): s += i * i\nprint(s)",
		      NULL};
	struct {
		char **argv;
		const char *name;
	} progs[] = {{xz, program_names[0]}, {py, program_names[1]}};
	int rc = 0;
	for (size_t i = 0; i < 2 && !rc; i++) {
		if (!in_path(progs[i].argv[0])) {
			char why[160];
			pb_format(why, sizeof why, "%s is not installed (scripts/install-deps.sh "
				  "installs it)", progs[i].argv[0]);
			pb_not_applicable(res, "cost", facility, why);
			continue;
		}
		rc = program_runs(o, facility, spec, progs[i].argv, progs[i].name, periods, 3,
				  ns_per_sample, res, err);
	}
	unlink(input);
	return rc;
}

static int cost_run(const struct pb_suite_options *o, const char *facility,
		    struct pb_results *res, struct pb_error *err)
{
	struct pb_spec spec;
	if (pb_spec_parse(facility, &spec, err))
		return -1;
	struct pb_suite_options oc = *o;
	oc.runs = sweep_runs(o);
	uint64_t periods[PB_MAX_LIST];
	unsigned np = cost_periods(o, &spec, periods);
	const char *workload = cost_workload(&spec);

	struct pb_point_request req;
	if (pb_plan_request(&req, facility, workload, 0, 1, PB_DELIVERY_NONE, err))
		return -1;
	req.machine = o->machine;
	/* Half the suite's run time: the densest periods in signal mode run several times that. */
	req.iterations = pb_calibrate_iterations(&req.workload, &req.events[0].spec,
						 o->target_ms / 2 ? o->target_ms / 2 : 1, err);
	if (!req.iterations)
		return -1;
	struct pb_result_point *base = pb_measure_runs(&oc, "cost", &req, res, err);
	if (!base)
		return -1;
	pb_rset_text(&base->params, "kind", "baseline");
	double baseline_ns = median_wall(base);
	const char *wname = base->workload;
	char wl[320];
	pb_format(wl, sizeof wl, "%s", wname ? wname : workload);

	struct pb_fit none_fit;
	bool none_fitted = false;
	for (unsigned m = 0; m < NMODES; m++) {
		struct sweep *sw = calloc(1, sizeof *sw);
		if (!sw)
			return pb_fail(err, PB_EXIT_FAILURE, 0, "out of memory");
		req.delivery = modes[m];
		bool failed = false;
		/* Periods alternate between the ends of the sweep (sparse, dense, next sparse, ...):
		 * in a monotone order a machine that warms up or quiets down during the sweep
		 * would read as a per-sample cost. */
		for (unsigned k = 0; k < np; k++) {
			unsigned i = k % 2 ? np - 1 - k / 2 : k / 2;
			req.period = req.events[0].period = periods[i];
			sw->period = periods[i];
			struct pb_result_point *p =
				pb_measure_runs_with(&oc, "cost", &req, res, collect, sw, err);
			if (!p) {
				if (err && err->code == PB_EXIT_INTERRUPTED) {
					free(sw);
					return -1;
				}
				failed = true;
				break;
			}
			pb_rset_text(&p->params, "kind", "sweep");
		}
		struct pb_fit fit;
		bool fitted;
		struct pb_result_point *fp =
			fit_point(res, facility, wl, modes[m], sw, baseline_ns, &fit, &fitted);
		free(sw);
		if (failed)
			pb_rset_text(&fp->params, "error",
				     err && err->msg[0] ? err->msg : "a run failed");
		if (m == 0 && fitted && !failed) {
			none_fit = fit;
			none_fitted = true;
		}
	}
	if (!none_fitted)
		return 0;

	/* Prediction with the cost of mode none (samples read after the run, as in the fit). */
	const char *other = predict_workload(&spec);
	if (!pb_fit_resolved(&none_fit)) {
		if (other)
			refuse_prediction(res, facility, other, &none_fit);
		for (size_t i = 0; is_timer(&spec) && i < 2; i++)
			refuse_prediction(res, facility, program_names[i], &none_fit);
		return 0;
	}
	double none_cost = none_fit.slope;
	uint64_t pp[3] = {periods[0], periods[np / 2], periods[np - 1]};
	unsigned npp = np >= 3 ? 3 : np;
	if (np < 3)
		memcpy(pp, periods, np * sizeof *pp);
	if (other) {
		unsigned tc[2] = {1, o->threads[o->nthreads - 1]};
		for (unsigned t = 0; t < (tc[1] > 1 ? 2u : 1u); t++)
			if (predict_workload_runs(&oc, facility, other, tc[t], pp, npp, none_cost,
						  res, err))
				return -1;
	}
	if (is_timer(&spec))
		return real_programs(&oc, facility, &spec, none_cost, res, err);
	return 0;
}

int pb_cost_measure(const char *facility, unsigned runs, uint64_t target_ms, struct pb_fit *fit,
		    struct pb_error *err)
{
	struct pb_spec spec;
	if (pb_spec_parse(facility, &spec, err))
		return -1;
	struct pb_suite_options o;
	memset(&o, 0, sizeof o);
	o.runs = runs ? runs : 1;
	uint64_t periods[PB_MAX_LIST];
	unsigned np = cost_periods(&o, &spec, periods);
	struct pb_point_request req;
	if (pb_plan_request(&req, facility, cost_workload(&spec), periods[0], 1, PB_DELIVERY_NONE,
			    err))
		return -1;
	req.iterations = pb_calibrate_iterations(&req.workload, &req.events[0].spec, target_ms,
						 err);
	if (!req.iterations)
		return -1;
	struct sweep *sw = calloc(1, sizeof *sw);
	if (!sw)
		return pb_fail(err, PB_EXIT_FAILURE, 0, "out of memory");
	int rc = 0;
	/* Rounds over the whole sweep, periods alternating between its ends, rather than all runs
	 * of one period in a row: drift on the machine then spreads over every period instead of
	 * reading as a per-sample cost. */
	for (unsigned r = 0; r < o.runs && !rc; r++) {
		for (unsigned k = 0; k < np; k++) {
			unsigned i = k % 2 ? np - 1 - k / 2 : k / 2;
			req.period = req.events[0].period = sw->period = periods[i];
			struct pb_point pt;
			if (pb_point_measure(&req, &pt, err)) {
				rc = -1;
				break;
			}
			collect(sw, &pt, NULL);
			pb_point_free(&pt);
		}
	}
	size_t points;
	if (!rc && fit_sweep(sw, fit, &points))
		rc = pb_fail(err, PB_EXIT_FAILURE, 0,
			     "the cost sweep of %s gave no fit (the same samples in every run)",
			     facility);
	free(sw);
	return rc;
}

const struct pb_experiment pb_experiment_cost = {
	.name = "cost",
	.summary = "ns per sample from a period sweep (slope, R², CI); predicted vs measured time",
	.run = cost_run,
	.plan = cost_plan,
};
