/* Real programs as a prediction's targets: xz and python3 run as given, each at three periods
 * against baselines interleaved with the sampled runs (cost_predict.c judges them). */
#include "experiments/cost_parts.h"

#include "runner/runner.h"

#include "util/kit.h"
#include "util/rng.h"
#include "util/text.h"

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
					    "uprobe", "timer", "loss", "overhead", "skid"};
	struct pb_rng rng;
	pb_rng_seed(&rng, 88172645463325252ull);
	for (size_t written = 0; f && written < bytes;) {
		uint64_t x = pb_rng_next(&rng);
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

struct program_target {
	char *const *argv;
	char *const *env_set;
	const struct pb_spec *spec;
	struct pb_result_point *bp;   /* the baseline point: its runs, or the error */
	unsigned cpu;                 /* every run's CPU */
	bool unpinned;                /* a run's CPU was refused */
};

static int program_run(void *ctx, uint64_t period, unsigned round, struct predict_run *out,
		       struct pb_error *err)
{
	(void)err;
	struct program_target *p = ctx;
	struct pb_program_figures f;
	struct pb_error run_err = {0};
	if (pb_program_measure(p->argv, p->env_set, period ? p->spec : NULL, period, 0,
			       (int)p->cpu, &f, &run_err)) {
		pb_rset_text(&p->bp->params, "error", run_err.msg);
		return 1;
	}
	if (f.unpinned && !p->unpinned) {
		/* said once; the rounds still run, where the kernel puts them */
		p->unpinned = true;
		char why[200];
		pb_format(why, sizeof why, "not pinned: CPU %u was refused (%s), so its runs went "
			  "wherever the kernel put them", p->cpu, strerror(f.unpinned_errno));
		pb_rset_text(&p->bp->params, "pinned_note", why);
	}
	if (!period && round != UINT_MAX) {
		/* the warm-up run (round UINT_MAX) is left out of the rounds */
		struct pb_rset *run = pb_rlist_set(&p->bp->runs);
		pb_rset_int(run, "run", PB_UNIT_NONE, round);
		pb_rset_int(run, "cpu_ns", PB_UNIT_NS, (int64_t)f.cpu_ns);
		pb_rset_int(run, "wall_ns", PB_UNIT_NS, (int64_t)f.wall_ns);
		pb_rset_int(run, "maxrss_kib", PB_UNIT_KIB, (int64_t)f.maxrss_kib);
	}
	*out = (struct predict_run){
		.cpu = (double)f.cpu_ns,
		.wall = (double)f.wall_ns,
		.samples = (double)f.samples,
		.events = (double)f.count,
		.expected = (double)f.samples + (double)f.lost,
		.lost = (double)f.lost,
	};
	return 0;
}

/* A real program: CPU time is the program's (user + system from wait4). A run that fails leaves
 * its error on the baseline point, and the program is skipped. */
static int program_runs(const struct pb_suite_options *o, const char *facility,
			const struct pb_spec *spec, char *const *argv, char *const *env_set,
			const char *name,
			const uint64_t *periods, const double *aimed_pct, unsigned nperiods,
			const struct cost_fit *none, double cost_moved,
			struct pb_results *res, struct pb_error *err)
{
	struct prediction_rounds_done *d = calloc(1, sizeof *d);
	if (!d)
		return pb_fail(err, PB_EXIT_FAILURE, 0, "out of memory");
	*d = (struct prediction_rounds_done){.spec = spec, .none = none, .threads = 1,
					     .periods = periods, .aimed_pct = aimed_pct,
					     .nperiods = nperiods, .cost_moved = cost_moved};
	/* made first: a run that fails leaves its error here */
	/* On the CPU the cost fit's runs used: a program left to the scheduler lands on either
	 * CPU, and on a guest whose vCPUs run at different speeds (2026-11-28, kind B: a loop
	 * took 2.8 times as long on one as on the other, for minutes at a time, and xz's runs
	 * split into 56 and 77 ms) its runs split in two, sampled or not */
	struct program_target p = {argv, env_set, spec,
				   pb_cost_prediction_baseline_point(res, facility, name, 1),
				   pb_runner_thread_cpu(0), false};
	pb_rset_int(&p.bp->params, "cpu", PB_UNIT_NONE, p.cpu);
	char what[256];
	pb_format(what, sizeof what, "cost %s %s", facility, name);
	/* what the runs were given beside this process's environment, said where they are */
	char env[256] = "";
	for (size_t i = 0; env_set && env_set[i]; i++)
		pb_append(env, sizeof env, "%s%s", i ? " " : "", env_set[i]);
	if (env[0])
		pb_rset_text(&p.bp->params, "environment", env);
	int rc = pb_cost_prediction_rounds(o, what, program_run, &p, d, err);
	if (!rc)
		pb_cost_prediction_points(res, facility, name, p.bp, d);
	free(d);
	return rc < 0 ? -1 : 0;
}

/* The interpreter python3 runs, not a wrapper in front of it: a pyenv shim is a shell script
 * that forks helpers before it execs the interpreter, and their CPU time would be in the
 * baseline (wait4 counts waited-for children) but never sampled (the timer follows the one
 * process). Falls back to "python3" when python3 cannot say. */
static void python_path(char *buf, size_t len)
{
	pb_format(buf, len, "python3");
	FILE *p = popen("python3 -c 'import sys; print(sys.executable)' 2>/dev/null", "r");
	if (!p)
		return;
	char line[4096];
	if (fgets(line, sizeof line, p)) {
		line[strcspn(line, "\n")] = 0;
		if (line[0] == '/' && !access(line, X_OK))
			pb_format(buf, len, "%s", line);
	}
	pclose(p);
}

const char *const pb_cost_program_names[2] = {"program:xz -4 -T1 (256 KiB text)",
					     "program:python3 -S loop 6e5"};

int pb_cost_real_programs(const struct pb_suite_options *o, const char *facility,
			 const struct pb_spec *spec, const struct cost_fit *none,
			 double cost_moved, struct pb_results *res, struct pb_error *err)
{
	/* from the fit: predicted slowdowns of 3, 10 and 30 % (issue 27: at the fixed 1 ms,
	 * 200 and 100 us most slowdowns were under 10 %, where a 10 % band on the run time passes
	 * a prediction of no cost at all) */
	static const uint64_t fallback[] = {1000000, 200000, 100000};
	uint64_t periods[3];
	double aimed[3];
	unsigned np = pb_cost_prediction_periods(spec, none, fallback, 3, periods, aimed);
	char input[64];
	if (make_input(input, sizeof input, 256u << 10, err))
		return -1;
	char python[4096];
	python_path(python, sizeof python);
	char *xz[] = {"xz", "-4", "-T1", "-c", "-k", input, NULL};
	/* -S: no site module, whose .pth files run whatever the machine's site-packages hold at
	 * start (here a sandbox's, importing certifi: 23 of the 47 ms python3 took for a loop of
	 * 3e5); the target is the interpreter and its loop, the same on every machine. A loop of
	 * 6e5 keeps the run as long (47.5 to 48.3 ms, 2026-11-28, kind A), the loop most of it
	 * (the interpreter alone starts in 7.3 ms): a burst of the machine's 10 to 25 ms is
	 * then as large a share of a run as it was */
	char *py[] = {python, "-S", "-c", "s = 0\nfor i in range(600000): s += i * i\nprint(s)",
		      NULL};
	/* One hash seed for every run: a random one lays out each run's dicts (its globals, the
	 * interned names) differently, and its run time with them, which a round's two runs then
	 * differ by. Interleaved runs of python3 3.11 (2026-11-28, kind A), their spread as
	 * IQR / 1.35 of the median, five times: 4.4, 4.8, 7.7, 5.1, 4.6 % with a random seed,
	 * 1.8, 2.1, 4.8, 4.8, 3.3 % with seed 0. */
	char *py_env[] = {"PYTHONHASHSEED=0", NULL};
	struct {
		char **argv;
		char **env_set;
		const char *name;
	} progs[] = {{xz, NULL, pb_cost_program_names[0]},
		     {py, py_env, pb_cost_program_names[1]}};
	int rc = 0;
	for (size_t i = 0; i < 2 && !rc; i++) {
		if (progs[i].argv[0][0] != '/' && !in_path(progs[i].argv[0])) {
			char why[160];
			pb_format(why, sizeof why, "%s is not installed (scripts/install-deps.sh "
				  "installs it)", progs[i].argv[0]);
			pb_not_applicable(res, "cost", facility, why);
			/* count_runs counted its fewest rounds of a baseline and three periods */
			pb_suite_more_runs(o, -(int)(pb_cost_predict_rounds(o) * 4));
			continue;
		}
		rc = program_runs(o, facility, spec, progs[i].argv, progs[i].env_set, progs[i].name,
				  periods, aimed, np, none, cost_moved, res, err);
	}
	unlink(input);
	return rc;
}
