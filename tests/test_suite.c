/* The suite loop (experiments/suite.c) on a fixture machine with constructed experiments:
 * which facilities run and which are skipped with what reason, the runs the progress bar is
 * told about, one experiment failing on one facility reported and the suite going on, and
 * an interruption stopping it at once. */
#include "check.h"
#include "fixture.h"
#include "experiments/suite.h"
#include "facilities/facility.h"
#include "facilities/machine.h"
#include "io/results.h"

#include <math.h>

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static struct pb_machine machine;

struct calls {
	unsigned ok, broken, stopper;
	char order[256];   /* "experiment@facility " per run, in order */
	unsigned failures;
	char failed[256];  /* "experiment@facility: message " per failure */
};
static struct calls calls;

static void note(const char *experiment, const char *facility)
{
	size_t len = strlen(calls.order);
	snprintf(calls.order + len, sizeof calls.order - len, "%s@%s ", experiment, facility);
}

static int ok_run(const struct pb_suite_options *o, const struct pb_spec *spec,
		  struct pb_results *res, struct pb_error *err)
{
	(void)o, (void)res, (void)err;
	calls.ok++;
	note("ok", spec->text);
	return 0;
}

static unsigned ok_count_runs(const struct pb_suite_options *o, const struct pb_spec *spec)
{
	(void)o, (void)spec;
	return 2;
}

static int broken_run(const struct pb_suite_options *o, const struct pb_spec *spec,
		      struct pb_results *res, struct pb_error *err)
{
	(void)o, (void)res;
	calls.broken++;
	note("broken", spec->text);
	return pb_fail(err, PB_EXIT_FAILURE, 0, "constructed failure on %s", spec->text);
}

static unsigned one_run(const struct pb_suite_options *o, const struct pb_spec *spec)
{
	(void)o, (void)spec;
	return 1;
}

static int stopper_run(const struct pb_suite_options *o, const struct pb_spec *spec,
		       struct pb_results *res, struct pb_error *err)
{
	(void)o, (void)res;
	calls.stopper++;
	note("stopper", spec->text);
	return pb_fail(err, PB_EXIT_INTERRUPTED, 0, "interrupted");
}

static const struct pb_experiment ok = {"ok", "always measures", ok_run, ok_count_runs};
static const struct pb_experiment broken = {"broken", "always fails", broken_run, one_run};
static const struct pb_experiment stopper = {"stopper", "is interrupted", stopper_run, one_run};

static void on_failure(void *ctx, const char *experiment, const char *facility,
		       const char *message)
{
	CHECK(ctx == &calls);
	calls.failures++;
	size_t len = strlen(calls.failed);
	snprintf(calls.failed + len, sizeof calls.failed - len, "%s@%s: %s ", experiment, facility,
		 message);
}

static bool open_results(struct pb_results *res, char *dir)
{
	strcpy(dir, "/tmp/pb_suite.XXXXXX");
	struct pb_error err = {0};
	char *argv[] = {"run", NULL};
	return CHECK_MSG(mkdtemp(dir) && !pb_results_open(res, dir, 1, argv, &err),
			 "results folder: %s", err.msg);
}

static void close_results(struct pb_results *res, const char *dir)
{
	pb_results_close(res);
	rmdir(dir);
}

static bool skipped_for(const struct pb_suite *s, const char *facility, const char *reason)
{
	for (unsigned i = 0; i < s->nskipped; i++)
		if (!strcmp(s->skipped[i].facility, facility) && strstr(s->skipped[i].reason, reason))
			return true;
	return false;
}

/* Asked facilities (parsed by the command: a spec that does not parse never reaches the
 * suite): the available ones run in the order given, the others are skipped with the reason;
 * a failing experiment is reported and the next runs. */
static void asked_facilities_and_a_failure(void)
{
	struct pb_results res;
	char dir[32];
	if (!open_results(&res, dir))
		return;
	struct pb_suite_options o;
	pb_suite_options_defaults(&o);
	struct pb_suite s = {.experiments = {&broken, &ok}, .nexperiments = 2};
	const struct pb_spec asked[] = {*pb_test_spec("ibs-op"), *pb_test_spec("spe"),
					*pb_test_spec("hw:instructions")};
	pb_suite_choose(&s, &machine, asked, 3, &o, &res);
	CHECK_EQ_U64(s.nrunnable, 2);
	CHECK(s.nrunnable == 2 && !strcmp(s.runnable[0].text, "ibs-op") &&
	      !strcmp(s.runnable[1].text, "hw:instructions"));
	CHECK_EQ_U64(s.nskipped, 1);
	CHECK_MSG(skipped_for(&s, "spe", "SPE is an Arm facility"), "spe skipped: %s",
		  s.nskipped ? s.skipped[0].reason : "(none)");
	CHECK_EQ_U64(s.total_runs, 2 * (1 + 2));

	memset(&calls, 0, sizeof calls);
	double seconds = -1;
	int rc = pb_suite_run(&s, &o, &res, on_failure, &calls, &seconds);
	CHECK_EQ_U64(rc, PB_EXIT_OK);
	CHECK(seconds >= 0);
	CHECK_EQ_U64(calls.ok, 2);
	CHECK_EQ_U64(calls.broken, 2);
	CHECK_STR_CONTAINS(calls.order,
			   "broken@ibs-op ok@ibs-op broken@hw:instructions ok@hw:instructions ");
	CHECK_EQ_U64(calls.failures, 2);
	CHECK_STR_CONTAINS(calls.failed, "broken@ibs-op: constructed failure on ibs-op ");
	CHECK_STR_CONTAINS(calls.failed,
			   "broken@hw:instructions: constructed failure on hw:instructions");
	close_results(&res, dir);
}

/* An interruption ends the suite: nothing runs after it, on no facility. */
static void interruption_stops_everything(void)
{
	struct pb_results res;
	char dir[32];
	if (!open_results(&res, dir))
		return;
	struct pb_suite_options o;
	pb_suite_options_defaults(&o);
	struct pb_suite s = {.experiments = {&ok, &stopper, &ok}, .nexperiments = 3};
	const struct pb_spec asked[] = {*pb_test_spec("ibs-op"), *pb_test_spec("hw:instructions")};
	pb_suite_choose(&s, &machine, asked, 2, &o, &res);
	memset(&calls, 0, sizeof calls);
	int rc = pb_suite_run(&s, &o, &res, on_failure, &calls, NULL);
	CHECK_EQ_U64(rc, PB_EXIT_INTERRUPTED);
	CHECK_EQ_U64(calls.ok, 1);
	CHECK_EQ_U64(calls.stopper, 1);
	CHECK_EQ_U64(calls.failures, 0);
	CHECK_STR_CONTAINS(calls.order, "ok@ibs-op stopper@ibs-op ");
	CHECK(!strstr(calls.order, "hw:instructions"));
	close_results(&res, dir);
}

/* By default: every experiment, and each facility's own suite spec, run or skipped. */
static void defaults(void)
{
	struct pb_results res;
	char dir[32];
	if (!open_results(&res, dir))
		return;
	struct pb_suite_options o;
	pb_suite_options_defaults(&o);
	struct pb_suite s = {0};
	pb_suite_choose(&s, &machine, NULL, 0, &o, &res);
	unsigned experiments = 0, suite_specs = 0;
	for (const struct pb_experiment *const *e = pb_experiment_list(); *e; e++)
		CHECK_MSG(experiments < s.nexperiments && s.experiments[experiments++] == *e,
			  "experiment %s not chosen by default", (*e)->name);
	CHECK_EQ_U64(s.nexperiments, experiments);
	for (const struct pb_facility *const *f = pb_facility_list(); *f; f++) {
		if (!(*f)->suite_spec)
			continue;
		suite_specs++;
		bool runs = false;
		for (unsigned i = 0; i < s.nrunnable; i++)
			runs |= !strcmp(s.runnable[i].text, (*f)->suite_spec);
		CHECK_MSG(runs != skipped_for(&s, (*f)->suite_spec, ""),
			  "%s: neither run nor skipped, or both", (*f)->suite_spec);
	}
	CHECK_EQ_U64(s.nrunnable + s.nskipped, suite_specs);
	/* the zen4 tree has IBS and no SPE */
	CHECK(skipped_for(&s, "spe", "Arm facility"));
	bool ibs = false;
	for (unsigned i = 0; i < s.nrunnable; i++)
		ibs |= !strncmp(s.runnable[i].text, "ibs-op", 6);
	CHECK(ibs);
	close_results(&res, dir);
}

/* The machine's ticks a "ticker" experiment moves on while the suite runs: 800 busy, 600
 * idle and 100 stolen of 1500 (a saved tree's /proc/stat, rewritten). */
static char ticks_root[32];

static void write_ticks(const char *line)
{
	char path[64];
	snprintf(path, sizeof path, "%s/proc/stat", ticks_root);
	FILE *f = fopen(path, "w");
	if (!CHECK_MSG(f != NULL, "cannot write %s", path))
		return;
	fputs(line, f);
	fclose(f);
}

static int ticker_run(const struct pb_suite_options *o, const struct pb_spec *spec,
		      struct pb_results *res, struct pb_error *err)
{
	(void)o, (void)spec, (void)res, (void)err;
	write_ticks("cpu  1600 0 700 8600 0 0 0 200\ncpu0 1600 0 700 8600 0 0 0 200\n");
	return 0;
}

static const struct pb_experiment ticker = {"ticker", "moves the ticks", ticker_run, one_run};

/* What else the machine did is read at the suite's start and end and kept with its closing
 * figures; a machine whose ticks cannot be read gives none (never a 0 that looks measured). */
static void load_beside_the_suite(void)
{
	strcpy(ticks_root, "/tmp/pb_ticks.XXXXXX");
	if (!CHECK_MSG(mkdtemp(ticks_root) != NULL, "mkdtemp"))
		return;
	char dir[64];
	snprintf(dir, sizeof dir, "%s/proc", ticks_root);
	CHECK(mkdir(dir, 0755) == 0);
	struct pb_machine saved;
	memset(&saved, 0, sizeof saved);
	snprintf(saved.root, sizeof saved.root, "%s", ticks_root);
	for (int readable = 1; readable >= 0; readable--) {
		struct pb_results res;
		char out[32];
		if (!open_results(&res, out))
			break;
		if (readable)
			write_ticks("cpu  1000 0 500 8000 0 0 0 100\n");
		struct pb_suite_options o;
		pb_suite_options_defaults(&o);
		o.machine = &saved;
		struct pb_suite s = {.experiments = {&ticker}, .nexperiments = 1};
		const struct pb_spec asked[] = {*pb_test_spec("ibs-op")};
		pb_suite_choose(&s, &machine, asked, 1, &o, &res);
		CHECK_EQ_U64(pb_suite_run(&s, &o, &res, NULL, NULL, NULL), PB_EXIT_OK);
		bool known = false;
		double steal = pb_rset_get_number(&res.tail, "steal_pct", &known);
		if (readable) {
			/* 100 of 1500 ticks, whatever the suite's own time */
			CHECK_MSG(known && fabs(steal - 100.0 / 15) < 1e-9, "steal %g", steal);
			CHECK(pb_rset_get_number(&res.tail, "steal_ci95_pp", NULL) > 0);
			CHECK(pb_rset_get_number(&res.tail, "other_load_cpus", NULL) >= 0);
			CHECK(pb_rset_get_number(&res.tail, "other_load_cpus_ci95", NULL) > 0);
			CHECK(pb_rset_get_number(&res.tail, "load_cpus", NULL) > 0);
		} else {
			CHECK(!known && !pb_rset_get(&res.tail, "other_load_cpus"));
		}
		/* the loop would time this machine, not the saved tree's: no probes */
		CHECK(!pb_rset_get(&res.tail, "cpu_speed_probes"));
		close_results(&res, out);
		snprintf(dir, sizeof dir, "%s/proc/stat", ticks_root);
		unlink(dir);
	}
	char cmd[64];
	snprintf(cmd, sizeof cmd, "rm -rf %s", ticks_root);
	CHECK(system(cmd) == 0);
}

int main(void)
{
	pb_test_fixture(&machine, "sysfs-zen4");
	load_beside_the_suite();
	asked_facilities_and_a_failure();
	interruption_stops_everything();
	defaults();
	return pb_check_done("suite");
}
