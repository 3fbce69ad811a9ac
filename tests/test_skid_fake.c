/* Skid in events on constructed counter-overflow samples (the arm64 guest's machine, fake
 * kernel): each sample carries the count the overflow interrupt read, k x period + skid for
 * the k-th overflow, and the point must report the median and max of exactly those skids. */
#include "check.h"
#include "results_json.h"
#include "experiments/point.h"
#include "fake_kernel.h"
#include "fixture.h"

#include <string.h>

#define PERIOD 10007

static struct pb_machine a57, skl;

struct script {
	uint64_t skid[16];             /* of sample k (cycled) */
	unsigned nskid;
	uint64_t samples;
	uint64_t skip;                 /* this sample (1-based) is never written: lost; 0 none */
	bool saw_read;                 /* the sampling event asked for PERF_SAMPLE_READ */
};

static struct script script;

static void write_samples(struct fake_event *ev, void *ctx)
{
	(void)ctx;
	if (!ev->attr.sample_period)
		return;
	script.saw_read = ev->attr.sample_type & PERF_SAMPLE_READ;
	uint8_t rec[512];
	for (uint64_t k = 1; k <= script.samples; k++) {
		uint64_t count = k * ev->attr.sample_period + script.skid[(k - 1) % script.nskid];
		struct pb_sample s = {.ip = 0x401000, .pid = 1, .tid = 1, .time = k, .id = ev->id,
				      .identifier = ev->id};
		s.read.nr = 1;
		s.read.time_enabled = s.read.time_running = k;
		s.read.values[0].value = count;
		s.read.values[0].id = ev->id;
		if (k == script.skip)
			continue;
		fake_ring_write(ev, rec, fake_build_sample(rec, sizeof rec, &ev->attr, &s));
	}
	ev->count = (script.samples + 1) * ev->attr.sample_period - 1;
	ev->time_enabled = ev->time_running = 1000000;
}

static bool measure(const struct pb_machine *m, const char *facility, bool skid,
		    struct pb_point *pt)
{
	struct pb_point_request req;
	struct pb_error err = {0};
	pb_point_request_defaults(&req);
	req.machine = m;
	CHECK(pb_point_request_set(&req, pb_test_spec(facility), "busy", NULL, &(uint64_t){0},
				   &err) == 0);
	req.events[0].period = PERIOD;
	req.iterations = 1000;
	req.measure_skid = skid;
	fake_kernel_install();
	fake_kernel_on_disable(write_samples, NULL);
	int rc = pb_point_measure(&req, pt, &err);
	if (rc)
		fprintf(stderr, "%s\n", err.msg);
	CHECK(rc == 0);
	if (!rc) {
		char text[4096];
		FILE *f = fmemopen(text, sizeof text, "w");
		pb_point_print(f, &req, pt);
		fclose(f);
		json_t *j = pb_test_run_json(&req, pt);
		json_t *js = json_object_get(json_array_get(json_object_get(j, "events"), 0), "skid");
		if (pt->ev[0].skid.measured) {
			CHECK_EQ_U64(json_integer_value(json_object_get(js, "median")),
				     pt->ev[0].skid.median);
			CHECK_EQ_U64(json_integer_value(json_object_get(js, "max")), pt->ev[0].skid.max);
			CHECK(!strcmp(json_string_value(json_object_get(js, "unit")), "events"));
			char want[128];
			snprintf(want, sizeof want, "skid median %llu, max %llu events after the overflow",
				 (unsigned long long)pt->ev[0].skid.median,
				 (unsigned long long)pt->ev[0].skid.max);
			CHECK_STR_CONTAINS(text, want);
		} else {
			CHECK(js == NULL);
			CHECK(!strstr(text, "skid"));
		}
		json_decref(j);
	}
	fake_kernel_uninstall();
	return rc == 0;
}

/* Skids 0, 0, 3, 0, 7 over 100 samples: median 0, max 7, every sample in step. */
static void known_skid(void)
{
	memset(&script, 0, sizeof script);
	uint64_t skids[] = {0, 0, 3, 0, 7};
	memcpy(script.skid, skids, sizeof skids);
	script.nskid = 5;
	script.samples = 100;
	struct pb_point pt;
	if (!measure(&a57, "hw:cycles", true, &pt))
		return;
	CHECK(script.saw_read);
	CHECK(pt.ev[0].skid.measured);
	CHECK_EQ_U64(pt.ev[0].skid.samples, 100);
	CHECK_EQ_U64(pt.ev[0].skid.median, 0);
	CHECK_EQ_U64(pt.ev[0].skid.max, 7);
	CHECK_EQ_U64(pt.ev[0].skid.out_of_step, 0);
	pb_point_free(&pt);
}

/* A constant skid of 12 events: the median is 12, not 0. */
static void constant_skid(void)
{
	memset(&script, 0, sizeof script);
	script.skid[0] = 12;
	script.nskid = 1;
	script.samples = 51;
	struct pb_point pt;
	if (!measure(&a57, "hw:cycles", true, &pt))
		return;
	CHECK_EQ_U64(pt.ev[0].skid.samples, 51);
	CHECK_EQ_U64(pt.ev[0].skid.median, 12);
	CHECK_EQ_U64(pt.ev[0].skid.max, 12);
	pb_point_free(&pt);
}

/* Sample 40 of 60 never arrives: the 20 after it are out of step with their place in the
 * stream, and said to be. */
static void lost_sample_is_out_of_step(void)
{
	memset(&script, 0, sizeof script);
	script.skid[0] = 2;
	script.nskid = 1;
	script.samples = 60;
	script.skip = 40;
	struct pb_point pt;
	if (!measure(&a57, "hw:cycles", true, &pt))
		return;
	CHECK_EQ_U64(pt.ev[0].skid.samples, 59);
	CHECK_EQ_U64(pt.ev[0].skid.out_of_step, 20);
	CHECK_EQ_U64(pt.ev[0].skid.median, 2);
	pb_point_free(&pt);
}

/* Not asked for, or a facility whose samples do not carry the overflow's count (PEBS writes
 * its record at the event, not at the interrupt): no READ, no skid figures. */
static void only_where_the_model_says(void)
{
	memset(&script, 0, sizeof script);
	script.nskid = 1;
	script.samples = 10;
	struct pb_point pt;
	if (measure(&a57, "hw:cycles", false, &pt)) {
		CHECK(!script.saw_read);
		CHECK(!pt.ev[0].skid.measured);
		pb_point_free(&pt);
	}
	if (measure(&skl, "pebs:INST_RETIRED:PREC_DIST", true, &pt)) {
		CHECK(!script.saw_read);
		CHECK(!pt.ev[0].skid.measured);
		pb_point_free(&pt);
	}
}

int main(void)
{
	pb_test_fixture(&a57, "sysfs-qemu-a57");
	pb_test_fixture(&skl, "sysfs-skl");
	known_skid();
	constant_skid();
	lost_sample_is_out_of_step();
	only_where_the_model_says();
	return pb_check_done("test_skid_fake");
}
