/* Sampling a command over the fake kernel: the command really runs, the kernel's answers are
 * constructed, so a read the real kernel never cuts short can be. */
#include "check.h"
#include "fake_kernel.h"
#include "session/process.h"

#include <errno.h>
#include <string.h>

/* The counts read() will report, set once the event is open and before the command runs. */
static void set_count(void *ctx, pid_t child)
{
	(void)ctx;
	(void)child;
	struct fake_event *fe = fake_kernel_event_at(0);
	fe->count = 4321;
	fe->time_enabled = fe->time_running = 1000;
}

static int run_pinned(struct pb_process_result *res, bool pin, unsigned cpu,
		      struct pb_error *err)
{
	static char *argv[] = {"true", NULL};
	struct pb_process_config cfg = {.argv = argv, .nevents = 1, .quiet = true,
					.on_start = set_count, .pin = pin, .cpu = cpu};
	if (pb_spec_parse("sw:page-faults", &cfg.events[0].spec, err))
		return -1;
	return pb_process_run(&cfg, res, err);
}

static int run(struct pb_process_result *res, struct pb_error *err)
{
	return run_pinned(res, false, 0, err);
}

int main(void)
{
	struct pb_process_result res;
	struct pb_error err = {0};

	fake_kernel_install();
	CHECK(run(&res, &err) == 0);
	CHECK_EQ_U64(res.events[0].count, 4321);
	CHECK_EQ_U64(res.events[0].time_enabled, 1000);
	CHECK_EQ_U64(res.exit_code, 0);
	fake_kernel_uninstall();

	/* a short read fails the run instead of adding a partial buffer to the counts */
	fake_kernel_install();
	fake_kernel_short_read_next();
	CHECK(run(&res, &err) != 0);
	CHECK_EQ_U64(err.code, PB_EXIT_FAILURE);
	CHECK_STR_CONTAINS(err.msg, "short read");
	CHECK_STR_CONTAINS(err.msg, "sw:page-faults on true");
	CHECK_EQ_U64(res.events[0].count, 0);
	CHECK_EQ_U64(res.exit_code, 0);
	fake_kernel_uninstall();

	/* a CPU the kernel refuses (a cgroup's cpuset) does not stop the command: it runs where
	 * the kernel puts it, and the result says so with the kernel's reason */
	fake_kernel_install();
	fake_kernel_refuse_cpu(1, EINVAL);
	CHECK(run_pinned(&res, true, 1, &err) == 0);
	CHECK(res.unpinned);
	CHECK_EQ_U64(res.unpinned_errno, EINVAL);
	CHECK_EQ_U64(res.exit_code, 0);
	CHECK_EQ_U64(res.events[0].count, 4321);
	/* another CPU is granted; and no pin asks for none */
	CHECK(run_pinned(&res, true, 0, &err) == 0);
	CHECK(!res.unpinned);
	CHECK(run_pinned(&res, false, 1, &err) == 0);
	CHECK(!res.unpinned);
	fake_kernel_uninstall();
	return pb_check_done("process_fake");
}
