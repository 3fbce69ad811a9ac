/* `pesbench run`: the suite. Every chosen experiment on every chosen facility (default: all
 * experiments, every facility this machine has), results written atomically to --out, a
 * progress bar on a terminal, a compact table at the end. Ctrl-C stops after the current run
 * and writes what was measured, marked incomplete. */
#include "cli/commands.h"
#include "cli/options.h"
#include "experiments/experiment.h"
#include "facilities/facility.h"
#include "facilities/machine.h"
#include "io/probe_json.h"
#include "io/results.h"
#include "present/report.h"
#include "present/summary.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t interrupted;

static void on_interrupt(int sig)
{
	(void)sig;
	interrupted = 1;
}

static void usage(FILE *out)
{
	fprintf(out,
		"usage: pesbench run [EXPERIMENT...] [--facility SPEC]... [--period P[,P...]]\n"
		"                    [--runs N] [--threads LIST] [--delivery MODE] [--out DIR]\n"
		"                    [--target-ms MS] [--json] [--quiet]\n\n"
		"Runs experiments (default: all) on facilities (default: every facility this\n"
		"machine has; the others are listed as skipped, with the reason).\n\n"
		"experiments:\n");
	for (const struct pb_experiment *const *e = pb_experiment_list(); *e; e++)
		fprintf(out, "  %-9s %s\n", (*e)->name, (*e)->summary);
	fprintf(out,
		"\n  --facility SPEC  repeatable; `pesbench probe` lists the facilities\n"
		"  --period LIST    periods to use instead of each experiment's own\n"
		"  --runs N         repetitions of every point (default 5): mean, stdev, min, max\n"
		"  --threads LIST   thread counts, e.g. 1,2 (default: 1 and the number of CPUs)\n"
		"  --delivery MODE  none (default), signal, sigtrap, drain\n"
		"  --out DIR        results folder (default: results/<UTC time>)\n"
		"  --target-ms MS   wall time each run aims for (default 60)\n"
		"  --json           print results.json on stdout when done\n"
		"  --quiet          no progress bar, no table\n\n"
		"Writes DIR/results.json and DIR/results.csv (schema in README). Exit 0 when every\n"
		"point was measured, 130 when interrupted (partial results written, marked\n"
		"incomplete), 2 for bad usage, 3 when no chosen facility is available here, 4 when\n"
		"DIR cannot be written.\n");
}

struct progress {
	bool tty, quiet;
	unsigned done, total;
	time_t started;
};

static void show_progress(void *ctx, const char *what)
{
	struct progress *p = ctx;
	p->done++;
	if (p->quiet)
		return;
	if (!p->tty) {
		return;
	}
	unsigned width = 24, filled = p->total ? width * (p->done - 1) / p->total : 0;
	char bar[32];
	for (unsigned i = 0; i < width; i++)
		bar[i] = i < filled ? '#' : '.';
	bar[width] = '\0';
	fprintf(stderr, "\r\033[K[%s] %u/%u %.90s", bar, p->done, p->total, what);
	fflush(stderr);
}

static void end_progress(struct progress *p)
{
	if (p->tty && !p->quiet)
		fprintf(stderr, "\r\033[K");
}

int pb_cmd_run(int argc, char **argv)
{
	struct pb_suite_options o;
	pb_suite_options_defaults(&o);
	const char *facilities[PB_MAX_LIST];
	unsigned nfacilities = 0;
	const struct pb_experiment *chosen[16];
	unsigned nchosen = 0;
	const char *out_dir = NULL;
	bool json = false, quiet = false;
	struct pb_error err = {0};
	struct pb_option_parser op;
	static const char *const flags[] = {"json", "quiet", NULL};
	pb_options_begin(&op, argc, argv, flags);
	const char *name, *value;
	int r;
	while ((r = pb_options_next(&op, &name, &value)) > 0) {
		if (!strcmp(name, "help")) {
			usage(stdout);
			return PB_EXIT_OK;
		} else if (!*name) {
			const struct pb_experiment *e = pb_experiment_find(value);
			if (!e) {
				char known[256] = "";
				for (const struct pb_experiment *const *x = pb_experiment_list(); *x; x++) {
					strcat(known, (*x)->name);
					strcat(known, " ");
				}
				pb_fail(&err, PB_EXIT_USAGE, 0, "unknown experiment '%s'; known: %s",
					value, known);
				return pb_cli_report("run", &err);
			}
			if (nchosen < 16)
				chosen[nchosen++] = e;
		} else if (!strcmp(name, "json")) {
			json = true;
		} else if (!strcmp(name, "quiet")) {
			quiet = true;
		} else if (!strcmp(name, "facility")) {
			struct pb_spec spec;
			if (pb_spec_parse(value, &spec, &err))
				return pb_cli_report("run", &err);
			if (nfacilities == PB_MAX_LIST) {
				pb_fail(&err, PB_EXIT_USAGE, 0, "at most %d facilities", PB_MAX_LIST);
				return pb_cli_report("run", &err);
			}
			facilities[nfacilities++] = value;
		} else if (!strcmp(name, "period")) {
			if (pb_parse_u64_list("--period", value, 1, UINT64_MAX >> 1, o.periods,
					      PB_MAX_LIST, &o.nperiods, &err))
				return pb_cli_report("run", &err);
		} else if (!strcmp(name, "runs")) {
			uint64_t runs;
			if (pb_parse_u64("--runs", value, 1, 1000, &runs, &err))
				return pb_cli_report("run", &err);
			o.runs = (unsigned)runs;
		} else if (!strcmp(name, "threads")) {
			uint64_t list[PB_MAX_LIST];
			if (pb_parse_u64_list("--threads", value, 1, 4096, list, PB_MAX_LIST,
					      &o.nthreads, &err))
				return pb_cli_report("run", &err);
			for (unsigned i = 0; i < o.nthreads; i++) {
				char text[32];
				snprintf(text, sizeof text, "%llu", (unsigned long long)list[i]);
				if (pb_parse_threads("--threads", text, &list[i], &err))
					return pb_cli_report("run", &err);
				o.threads[i] = (unsigned)list[i];
			}
		} else if (!strcmp(name, "delivery")) {
			if (pb_delivery_parse(value, &o.delivery, &err))
				return pb_cli_report("run", &err);
		} else if (!strcmp(name, "out")) {
			out_dir = value;
		} else if (!strcmp(name, "target-ms")) {
			if (pb_parse_u64("--target-ms", value, 1, 3600000, &o.target_ms, &err))
				return pb_cli_report("run", &err);
		} else {
			return pb_cli_unknown_option("run", name);
		}
	}
	if (r < 0)
		return pb_cli_report("run", &op.err);
	if (!nchosen)
		for (const struct pb_experiment *const *e = pb_experiment_list(); *e && nchosen < 16;
		     e++)
			chosen[nchosen++] = *e;

	char default_dir[64];
	if (!out_dir) {
		time_t now = time(NULL);
		struct tm tm;
		gmtime_r(&now, &tm);
		strftime(default_dir, sizeof default_dir, "results/%Y%m%dT%H%M%SZ", &tm);
		out_dir = default_dir;
	}
	struct pb_results res;
	if (pb_results_open(&res, out_dir, argc, argv, &err))
		return pb_cli_report("run", &err);
	const struct pb_machine *m = pb_machine_live();
	json_t *probe = pb_probe_json(m);
	pb_results_set_machine(&res, probe);
	json_decref(probe);

	/* Which facilities run: the asked ones must be available; by default, those that are. */
	const char *runnable[PB_MAX_LIST];
	unsigned nrunnable = 0;
	bool explicit = nfacilities > 0;
	if (!explicit)
		/* What the default suite samples with, where the machine has it: each
		 * facility's own suite spec. */
		for (const struct pb_facility *const *f = pb_facility_list(); *f; f++)
			if ((*f)->suite_spec)
				facilities[nfacilities++] = (*f)->suite_spec;
	for (unsigned i = 0; i < nfacilities; i++) {
		struct pb_spec spec;
		struct pb_availability av;
		if (pb_spec_parse(facilities[i], &spec, &err)) {
			pb_results_skip(&res, facilities[i], err.msg);
			continue;
		}
		pb_facility_check(m, &spec, NULL, &av, NULL);
		if (av.available)
			runnable[nrunnable++] = facilities[i];
		else
			pb_results_skip(&res, facilities[i], av.reason);
	}
	/* with nothing to run, the reasons are the whole answer, --quiet or not */
	if (!quiet || !nrunnable)
		for (size_t i = 0; i < pb_rlist_size(&res.skipped); i++) {
			const struct pb_rset *s = pb_rlist_set_at(&res.skipped, i);
			fprintf(stderr, "skipping %s: %s\n", pb_rset_get_text(s, "facility"),
				pb_rset_get_text(s, "reason"));
		}
	if (!nrunnable) {
		pb_results_write(&res, true, NULL);
		pb_results_close(&res);
		pb_fail(&err, PB_EXIT_UNAVAILABLE, 0,
			"none of the chosen facilities is available here (reasons above; `pesbench "
			"probe` says more)");
		return pb_cli_report("run", &err);
	}

	struct progress progress = {.tty = isatty(STDERR_FILENO), .quiet = quiet,
				    .started = time(NULL)};
	for (unsigned f = 0; f < nrunnable; f++)
		for (unsigned e = 0; e < nchosen; e++)
			progress.total += chosen[e]->plan(&o, runnable[f]);
	o.progress = show_progress;
	o.progress_ctx = &progress;
	o.interrupted = &interrupted;

	struct sigaction sa = {.sa_handler = on_interrupt}, old_int, old_term;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);

	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	int rc = PB_EXIT_OK;
	for (unsigned f = 0; f < nrunnable && rc == PB_EXIT_OK; f++) {
		for (unsigned e = 0; e < nchosen; e++) {
			if (chosen[e]->run(&o, runnable[f], &res, &err)) {
				if (err.code == PB_EXIT_INTERRUPTED) {
					rc = PB_EXIT_INTERRUPTED;
					break;
				}
				/* One facility failing one experiment is a result, not the end. */
				struct pb_result_point *p =
					pb_results_point(&res, chosen[e]->name, runnable[f], NULL);
				pb_rset_text(&p->params, "error", err.msg);
				if (!quiet) {
					end_progress(&progress);
					fprintf(stderr, "pesbench run: %s on %s failed: %s\n",
						chosen[e]->name, runnable[f], err.msg);
				}
				pb_error_clear(&err);
			}
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	end_progress(&progress);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);

	double seconds = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	pb_rset_real(&res.tail, "suite_seconds", PB_UNIT_S, seconds);
	if (pb_results_write(&res, rc == PB_EXIT_OK, &err)) {
		pb_results_close(&res);
		return pb_cli_report("run", &err);
	}
	/* plots and report.html; the results are written, so a failure here is only a warning */
	if (pb_report_folder(&res, out_dir, false, pb_experiment_summary,
			     quiet ? NULL : stderr, NULL, &err))
		fprintf(stderr, "pesbench run: warning: no report: %s\n", err.msg);
	if (json) {
		json_t *doc = pb_results_json(&res);
		char *text = json_dumps(doc, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
		json_decref(doc);
		puts(text);
		free(text);
	} else if (!quiet) {
		pb_summary_print(stdout, &res);
	}
	if (!quiet)
		fprintf(stderr, "%s in %.1f s; results in %s/results.json and results.csv\n",
			rc == PB_EXIT_OK ? "suite done" : "suite INTERRUPTED, partial results",
			seconds, out_dir);
	pb_results_close(&res);
	return rc;
}
