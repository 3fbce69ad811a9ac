/* Workers drain their own rings when their measured region ends (delivery none, signal,
 * sigtrap), so with several threads the point's record callback runs on several threads at
 * once. Its tallies (samples per privilege level, per instruction, outside the code) are shared:
 * every sample must still be counted once. Before the session serialised the callback, two
 * threads draining 60 000 samples each lost increments here. */
#include "check.h"
#include "experiments/point.h"
#include "fake_kernel.h"
#include "fixture.h"

#include <string.h>

#define SAMPLES 60000

static struct pb_machine skl;
static struct pb_point *measuring;   /* its instance holds the workload's code range */

static void write_samples(struct fake_event *ev, void *ctx)
{
	(void)ctx;
	if (!ev->attr.sample_period)
		return;
	uint8_t rec[512];
	uint64_t code_ip = measuring->instance.truth.code_begin;
	for (uint64_t k = 1; k <= SAMPLES; k++) {
		/* every other sample on the workload's first instruction, the rest outside it */
		struct pb_sample s = {.ip = k % 2 ? code_ip : 0x1000, .pid = 1, .tid = 1, .time = k,
				      .id = ev->id, .identifier = ev->id};
		fake_ring_write(ev, rec, fake_build_sample(rec, sizeof rec, &ev->attr, &s));
	}
	ev->count = SAMPLES * ev->attr.sample_period;
	ev->time_enabled = ev->time_running = 1000000;
}

static void concurrent_drains_count_every_sample(const char *delivery)
{
	struct pb_point_request req;
	struct pb_error err = {0};
	pb_point_request_defaults(&req);
	req.machine = &skl;
	CHECK(pb_point_request_set(&req, pb_test_spec("timer:cpu-clock"), "busy", NULL, NULL,
				   &err) == 0);
	CHECK(pb_delivery_parse(delivery, &req.delivery, &err) == 0);
	req.threads = 2;
	req.iterations = 1000;
	req.ring_pages = 1024;           /* room for every sample: nothing lost */
	req.attribute = true;
	fake_kernel_install();
	fake_kernel_on_disable(write_samples, NULL);
	struct pb_point pt;
	measuring = &pt;
	int rc = pb_point_measure(&req, &pt, &err);
	if (rc)
		fprintf(stderr, "%s\n", err.msg);
	CHECK(rc == 0);
	if (!rc) {
		const struct pb_point_figures *f = &pt.ev[0];
		CHECK_EQ_U64(f->lost, 0);
		CHECK_EQ_U64(f->observed, 2 * SAMPLES);
		CHECK_EQ_U64(f->user_samples + f->kernel_samples, 2 * SAMPLES);
		uint64_t at = 0;
		for (size_t i = 0; i < pt.code.n; i++)
			at += pt.insn_samples[i];
		CHECK_EQ_U64(at, SAMPLES);
		CHECK_EQ_U64(pt.outside_samples, SAMPLES);
		pb_point_free(&pt);
	}
	fake_kernel_uninstall();
}

int main(void)
{
	pb_test_fixture(&skl, "sysfs-skl");
	for (int round = 0; round < 6; round++) {
		concurrent_drains_count_every_sample("none");
		concurrent_drains_count_every_sample("signal");
	}
	return pb_check_done("test_tally_threads");
}
