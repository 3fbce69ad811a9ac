/* Calibration: the iterations whose run takes the target time are found from the thread's CPU
 * time, so a thread that waited for its CPU (a busy machine) does not shorten every run after,
 * and a host's pause in one of the three timings does not either. Runs are stand-ins with a
 * known cost per iteration; one real run checks that a measured point hands its CPU time. */
#include "check.h"
#include "experiments/experiment.h"
#include "experiments/point.h"

#include <string.h>

#define NS_PER_ITERATION 50
#define TARGET_MS 20
#define WANTED (TARGET_MS * 1000000ull / NS_PER_ITERATION)

/* What the stand-in run does besides its work, in ns: waiting for the CPU (wall only) or a
 * pause the guest counts as the thread's time. */
static uint64_t waited_ns, paused_ns;
/* the pause hits only the timings whose number (from 0) is in this mask */
static uint64_t paused_timings;
static unsigned timings;
static bool fail_at_third;

static int stand_in(const struct pb_point_request *req, struct pb_point *pt,
		    struct pb_error *err)
{
	unsigned n = timings++;
	if (fail_at_third && n == 2)
		return pb_fail(err, PB_EXIT_FAILURE, 0, "the run failed");
	memset(pt, 0, sizeof *pt);
	uint64_t cpu = req->iterations * NS_PER_ITERATION;
	if (n < 64 && (paused_timings >> n & 1))
		cpu += paused_ns;
	pt->cpu_ns[0] = cpu;
	pt->wall_ns = cpu + waited_ns;
	CHECK_EQ_U64(req->threads, 1);
	return 0;
}

static struct pb_point_request request(void)
{
	struct pb_point_request req;
	pb_point_request_defaults(&req);
	return req;
}

static uint64_t calibrate(uint64_t waited, uint64_t paused, uint64_t paused_mask)
{
	waited_ns = waited;
	paused_ns = paused;
	paused_timings = paused_mask;
	timings = 0;
	struct pb_point_request req = request();
	struct pb_error err = {0};
	return pb_calibrate_with(&req, TARGET_MS, stand_in, &err);
}

/* Beside make check a 500-iteration run's thread had 0.15 ms of CPU in 5.1 ms of wall: on the
 * wall time the run would look 30 times dearer. */
static void test_waiting_for_the_cpu(void)
{
	CHECK_EQ_U64(calibrate(0, 0, 0), WANTED);
	CHECK_EQ_U64(calibrate(5000000, 0, 0), WANTED);
	CHECK_EQ_U64(calibrate(50000000, 0, 0), WANTED);
}

/* A pause the guest cannot see is in the CPU time too: the fastest of three timings counts,
 * and a long first timing does not stop the growth unless the fastest is long too. */
static void test_paused(void)
{
	/* the first timing, 500 iterations, paused 6 ms: the two after it are 25 µs */
	CHECK_EQ_U64(calibrate(0, 6000000, 1), WANTED);
	/* the last growth step's first and third timings paused */
	uint64_t quiet = calibrate(0, 0, 0);
	unsigned steps = timings;
	CHECK(steps >= 3);
	CHECK_EQ_U64(calibrate(0, 3000000, 1ull << (steps - 3) | 1ull << (steps - 1)), quiet);
}

static void test_failure(void)
{
	fail_at_third = true;
	timings = 0;
	struct pb_point_request req = request();
	struct pb_error err = {0};
	CHECK_EQ_U64(pb_calibrate_with(&req, TARGET_MS, stand_in, &err), 0);
	CHECK(strstr(err.msg, "the run failed") != NULL);
	fail_at_third = false;
}

/* A run that takes no measurable CPU time ends the growth at its cap, and the result stays a
 * number of iterations (no division by zero, no overflowing conversion). */
static uint64_t zero_cost_timings;
static int zero_cost(const struct pb_point_request *req, struct pb_point *pt, struct pb_error *err)
{
	(void)req;
	(void)err;
	zero_cost_timings++;
	memset(pt, 0, sizeof *pt);
	return 0;
}

static void test_zero_cost(void)
{
	struct pb_point_request req = request();
	struct pb_error err = {0};
	uint64_t it = pb_calibrate_with(&req, TARGET_MS, zero_cost, &err);
	CHECK(it >= 100);
	CHECK(it <= 1ull << 40);
	CHECK(zero_cost_timings < 40);
}

/* The real run: one thread's CPU time, within its wall time. */
static uint64_t real_cpu_ns, real_wall_ns;
static int real_run(const struct pb_point_request *req, struct pb_point *pt, struct pb_error *err)
{
	int rc = pb_point_measure(req, pt, err);
	if (!rc) {
		real_cpu_ns = pt->cpu_ns[0];
		real_wall_ns = pt->wall_ns;
	}
	return rc;
}

static void test_real(void)
{
	struct pb_point_request req = request();
	req.no_perf = true;
	struct pb_error err = {0};
	CHECK(pb_workload_parse("busy", &req.workload, &err) == 0);
	uint64_t it = pb_calibrate_with(&req, 5, real_run, &err);
	if (!it)
		fprintf(stderr, "calibration failed: %s\n", err.msg);
	CHECK(it >= 100);
	CHECK(real_cpu_ns > 0);
	/* both clocks read inside the run's region; the thread clock's tick granularity aside */
	CHECK(real_cpu_ns <= real_wall_ns + 1000000);
}

int main(void)
{
	test_waiting_for_the_cpu();
	test_paused();
	test_failure();
	test_zero_cost();
	test_real();
	return pb_check_done("calibrate");
}
