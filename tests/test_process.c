/* Sampling a command: counts and samples of a real child, its exit status, its rusage, and
 * the errors a user meets (command not found). */
#include "check.h"
#include "session/process.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

static uint64_t samples_seen;

static void count_samples(void *ctx, unsigned event, const struct pb_record *rec)
{
	(void)ctx;
	(void)event;
	samples_seen += rec->type == PERF_RECORD_SAMPLE;
}

static int run(char *const *argv, const char *spec, uint64_t period, bool inherit,
	       struct pb_process_result *res, struct pb_error *err)
{
	struct pb_process_config cfg = {.argv = argv, .nevents = 1, .inherit = inherit,
					.quiet = true, .on_record = count_samples};
	if (pb_spec_parse(spec, &cfg.events[0].spec, err))
		return -1;
	cfg.events[0].period = period;
	cfg.events[0].exclude_kernel = false;
	samples_seen = 0;
	return pb_process_run(&cfg, res, err);
}

int main(void)
{
	const char *bin = getenv("PB_BIN");
	if (!bin)
		pb_skip("PB_BIN is not set (run through ctest)");
	struct pb_process_result res;
	struct pb_error err = {0};

	/* the workload child faults 2048 pages in its worker thread (so the events must be
	 * inherited), then exits 0; every fault is one sample at period 1, and the kernel's
	 * count agrees with the samples read */
	char *faults[] = {(char *)bin, "measure", "--facility", "none", "--workload",
			  "mode:kernel=fault", "--iterations", "2048", NULL};
	int rc = run(faults, "sw:page-faults", 1, true, &res, &err);
	if (rc && (err.sys_errno == EACCES || err.sys_errno == EPERM))
		pb_skip("perf events not permitted: %s", err.msg);
	CHECK(rc == 0);
	CHECK_EQ_U64(res.exit_code, 0);
	CHECK(!res.signaled);
	CHECK(res.events[0].count >= 2048);
	CHECK_EQ_U64(res.events[0].samples + pb_event_lost(&res.events[0]), res.events[0].count);
	CHECK_EQ_U64(samples_seen, res.events[0].samples);
	CHECK(res.rusage.ru_maxrss > 0);
	CHECK(res.wall_ns > 0);

	/* timer sampling of a busy child: samples arrive, none are invented */
	char *busy[] = {(char *)bin, "measure", "--facility", "none", "--workload", "busy",
			"--iterations", "20000000", NULL};
	CHECK(run(busy, "timer:task-clock", 100000, true, &res, &err) == 0);
	CHECK(res.events[0].samples > 0);
	CHECK(res.events[0].samples <= res.events[0].count / 100000 + 1);

	/* inherit: a shell whose child does the faulting: per-CPU events follow it */
	char *shell[] = {"sh", "-c", "\"$0\" measure --facility none --workload mode:kernel=fault "
				     "--iterations 1000 >/dev/null", (char *)bin, NULL};
	CHECK(run(shell, "sw:page-faults", 1, true, &res, &err) == 0);
	CHECK(res.events[0].count >= 1000);
	CHECK_EQ_U64(res.events[0].samples + pb_event_lost(&res.events[0]), res.events[0].count);

	/* exit status and death by signal are results */
	char *fails[] = {"sh", "-c", "exit 3", NULL};
	CHECK(run(fails, "sw:page-faults", 0, false, &res, &err) == 0);
	CHECK_EQ_U64(res.exit_code, 3);
	char *killed[] = {"sh", "-c", "kill -9 $$", NULL};
	CHECK(run(killed, "sw:page-faults", 0, false, &res, &err) == 0);
	CHECK(res.signaled && res.term_signal == SIGKILL);

	/* a command that does not exist is a usage error naming it */
	char *missing[] = {"pesbench-no-such-command", NULL};
	CHECK(run(missing, "sw:page-faults", 0, false, &res, &err) != 0);
	CHECK_EQ_U64(err.code, PB_EXIT_USAGE);
	CHECK_STR_CONTAINS(err.msg, "pesbench-no-such-command");
	CHECK_STR_CONTAINS(err.msg, "not found");
	return pb_check_done("process");
}
