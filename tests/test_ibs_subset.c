/* IBS op subset events, the main study's way, through the fake kernel on the sysfs-zen4 fixture:
 * IBS tags one op per period, so the op samples that are L1-missing loads stand for the
 * workload's L1-missing loads: expected = declared L1 misses / period, observed = samples whose
 * OpData3 says LdOp and DcMiss. The constructed stream holds a known number of such samples
 * among ops of other kinds (hitting loads, missing stores, plain ops, invalid samples carrying
 * the same bits), and the accuracy must be the one that number implies, while the unfiltered
 * ibs-op accuracy of the same stream stays the one its total implies. */
#include "check.h"
#include "results_json.h"
#include "fixture.h"
#include "experiments/point.h"
#include "facilities/ibs_raw.h"
#include "facilities/machine.h"
#include "io/results.h"
#include "fake_kernel.h"
#include "util/kit.h"
#include "workloads/workload.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static struct pb_machine machine;

static void load_fixture(const char *name)
{
	pb_test_fixture(&machine, name);
}

#define OP_EN (1ull << 17)
#define OP_VAL (1ull << 18)
#define LD_OP (1ull << 0)
#define ST_OP (1ull << 1)
#define DC_MISS (1ull << 7)
#define DC_LIN_ADDR_VALID (1ull << 17)

/* The kinds of op sample in the stream, placed round-robin with these weights per 25. */
enum kind { LOAD_MISS, LOAD_HIT, STORE_MISS, PLAIN, INVALID_LOAD_MISS, NKINDS };

struct script {
	uint64_t total;            /* op samples written */
	uint64_t load_miss;        /* of which valid LdOp + DcMiss */
	uint64_t ip;
	uint64_t written[NKINDS];
};
static struct script script;

static void write_ops(struct fake_event *ev, void *ctx)
{
	(void)ctx;
	uint8_t rec[512], raw[4 + 7 * 8];
	memset(script.written, 0, sizeof script.written);
	uint64_t refused = 0;
	/* The L1-missing loads are spread evenly over the stream: sample n is one when the count
	 * of them due by n + 1 grows. */
	for (uint64_t n = 0; n < script.total; n++) {
		bool miss = (n + 1) * script.load_miss / script.total >
			    n * script.load_miss / script.total;
		enum kind k = miss ? LOAD_MISS : (enum kind)(1 + n % 4);
		uint64_t ctl = OP_EN | OP_VAL | (ev->attr.sample_period >> 4);
		uint64_t data3 = 0;
		switch (k) {
		case LOAD_MISS: data3 = LD_OP | DC_MISS | DC_LIN_ADDR_VALID; break;
		case LOAD_HIT: data3 = LD_OP | DC_LIN_ADDR_VALID; break;
		case STORE_MISS: data3 = ST_OP | DC_MISS | DC_LIN_ADDR_VALID; break;
		case PLAIN: data3 = 0; break;
		case INVALID_LOAD_MISS:
			/* the registers say load + miss, but OpVal is clear: not a sample to count */
			ctl &= ~OP_VAL;
			data3 = LD_OP | DC_MISS | DC_LIN_ADDR_VALID;
			break;
		case NKINDS: break;
		}
		script.written[k]++;
		uint32_t caps = 0x7 | (1u << 4); /* AVAIL|FETCHSAM|OPSAM|OPCNT: 7 registers */
		uint64_t regs[7] = {ctl, script.ip, 0, 0, data3, 0x7f0000300000ull + 64 * (n % 512), 0};
		memcpy(raw, &caps, 4);
		memcpy(raw + 4, regs, sizeof regs);
		struct pb_sample s = {.ip = script.ip, .pid = 1, .tid = 1, .time = n, .id = ev->id,
				      .identifier = ev->id, .period = ev->attr.sample_period,
				      .raw = raw, .raw_size = sizeof raw};
		size_t len = fake_build_sample(rec, sizeof rec, &ev->attr, &s);
		refused += !fake_ring_write(ev, rec, len);
	}
	CHECK_EQ_U64(refused, 0);
	ev->count = script.total * ev->attr.sample_period;
	ev->time_enabled = ev->time_running = 1000000;
}

#define PERIOD 4096
#define ITERATIONS 2000000

static int measure(const char *facility, struct pb_point_request *req, struct pb_point *pt)
{
	struct pb_error err = {0};
	pb_point_request_defaults(req);
	CHECK(pb_point_request_set(req, pb_test_spec(facility), "accuracy:ratio=20", NULL,
				   &(uint64_t){0}, &err) == 0);
	req->events[0].period = PERIOD;
	req->iterations = ITERATIONS;
	req->machine = &machine;
	fake_kernel_install();
	fake_kernel_on_disable(write_ops, NULL);
	int rc = pb_point_measure(req, pt, &err);
	if (rc)
		fprintf(stderr, "%s: %s\n", facility, err.msg);
	fake_kernel_uninstall();
	return rc;
}

static void subset_accuracy(void)
{
	load_fixture("sysfs-zen4");
	struct pb_workload_choice wl;
	struct pb_truth truth;
	struct pb_error err = {0};
	CHECK(pb_workload_parse("accuracy:ratio=20", &wl, &err) == 0);
	CHECK(pb_workload_truth(&wl, ITERATIONS, &truth, &err) == 0);
	CHECK(truth.l1_misses > 0);
	uint64_t instructions = truth.instructions * ITERATIONS + truth.once_instructions;
	/* one sample per PERIOD ops counted: floored */
	double all_expected = (double)(instructions / PERIOD);
	/* a subset's share of the op samples is a mean: not floored */
	double miss_expected = (double)(truth.l1_misses * ITERATIONS) / PERIOD;

	memset(&script, 0, sizeof script);
	script.total = (uint64_t)llround(all_expected * 0.96);
	script.load_miss = (uint64_t)llround(miss_expected * 0.88);
	script.ip = truth.labels[0].addr;

	/* the subset: observed = the valid load+L1-miss samples, against declared L1 misses */
	struct pb_point_request req;
	struct pb_point pt;
	CHECK(measure("ibs-op:subset=load+l1-miss", &req, &pt) == 0);
	CHECK_EQ_U64(req.events[0].spec.priv.subset, PB_IBS_OP_LOAD | PB_IBS_OP_L1_MISS);
	CHECK_EQ_U64(script.written[LOAD_MISS], script.load_miss);
	CHECK(script.written[INVALID_LOAD_MISS] > 0 && script.written[STORE_MISS] > 0);
	const struct pb_point_figures *f = &pt.ev[0];
	CHECK(!strcmp(f->basis, "declared"));
	CHECK_EQ_U64(f->declared, truth.l1_misses * ITERATIONS);
	CHECK(fabs(f->expected - miss_expected) < 1e-9);
	CHECK_EQ_U64(f->observed, script.load_miss);
	CHECK_EQ_U64(f->own[0], script.total);
	double accuracy = 100 - fabs((double)script.load_miss - miss_expected) / miss_expected * 100;
	CHECK(fabs(f->accuracy - accuracy) < 1e-9);
	CHECK(fabs(f->accuracy - 88) < 0.5);
	/* user/kernel figures describe the subset's samples */
	CHECK_EQ_U64(f->user_samples + f->kernel_samples, script.load_miss);
	json_t *j = pb_test_run_json(&req, &pt);
	json_t *ev = json_array_get(json_object_get(j, "events"), 0);
	CHECK_EQ_U64(json_integer_value(json_object_get(ev, "ibs_ops_sampled")), script.total);
	CHECK_EQ_U64(json_integer_value(json_object_get(ev, "observed")), script.load_miss);
	/* the facility's own figure is named as one */
	CHECK(!strcmp(json_string_value(json_array_get(json_object_get(ev, "facility_figures"), 0)),
		      "ibs_ops_sampled"));
	json_decref(j);
	/* a document that names no units (pesbench-results/1) reads it in the facility's own */
	CHECK(pb_own_figure_named("ibs_ops_sampled") ==
	      pb_spec_own_figure(&req.events[0].spec, 0));
	CHECK(pb_results_implied_unit("ibs_ops_sampled") == PB_UNIT_SAMPLES);
	CHECK(pb_own_figure_named("no_such_figure") == NULL);
	printf("ibs-op:subset=load+l1-miss: declared %llu, expected %.2f, observed %llu of %llu op "
	       "samples, accuracy %.3f%%\n", (unsigned long long)f->declared, f->expected,
	       (unsigned long long)f->observed, (unsigned long long)f->own[0],
	       f->accuracy);
	pb_point_free(&pt);

	/* the same stream unfiltered: every op sample, against the declared instructions */
	CHECK(measure("ibs-op", &req, &pt) == 0);
	f = &pt.ev[0];
	CHECK(!strcmp(f->basis, "declared"));
	CHECK_EQ_U64(f->declared, instructions);
	CHECK_EQ_U64(f->observed, script.total);
	CHECK_EQ_U64(f->own[0], 0);
	accuracy = 100 - fabs((double)script.total - all_expected) / all_expected * 100;
	CHECK(fabs(f->accuracy - accuracy) < 1e-9);
	CHECK(fabs(f->accuracy - 96) < 0.05);
	j = pb_test_run_json(&req, &pt);
	ev = json_array_get(json_object_get(j, "events"), 0);
	CHECK(json_object_get(ev, "ibs_ops_sampled") == NULL);
	json_decref(j);
	printf("ibs-op: expected %.2f, observed %llu, accuracy %.3f%%\n", f->expected,
	       (unsigned long long)f->observed, f->accuracy);
	pb_point_free(&pt);

	/* loads: hits and misses, valid only, against declared loads */
	CHECK(measure("ibs-op:subset=load", &req, &pt) == 0);
	f = &pt.ev[0];
	CHECK_EQ_U64(f->declared, truth.loads * ITERATIONS);
	CHECK_EQ_U64(f->observed, script.written[LOAD_MISS] + script.written[LOAD_HIT]);
	double loads_expected = (double)(truth.loads * ITERATIONS) / PERIOD;
	CHECK(fabs(f->accuracy - (100 - fabs((double)f->observed - loads_expected) /
					 loads_expected * 100)) < 1e-9);
	pb_point_free(&pt);

	/* a subset the workloads declare no count for: observed, but no accuracy */
	CHECK(measure("ibs-op:subset=l1-miss+store", &req, &pt) == 0);
	f = &pt.ev[0];
	CHECK(!strcmp(f->basis, "undeclared"));
	CHECK_EQ_U64(f->observed, script.written[STORE_MISS]);
	CHECK(isnan(f->accuracy));
	CHECK(f->expected == 0);
	pb_point_free(&pt);
}

/* The subset → declared-events mapping, one row at a time (see point.c). */
static void declared_mapping(void)
{
	struct pb_truth t = {0};
	t.instructions = 100;
	t.loads = 11;
	t.stores = 7;
	t.branches = 5;
	t.returns = 2;
	t.locked = 3;
	t.l1_misses = 13;
	static const struct {
		const char *spec;
		const char *basis;
		uint64_t per_iteration;
	} rows[] = {
		{"ibs-op:subset=l1-miss", "declared", 13},
		{"ibs-op:subset=load+l1-miss", "declared", 13},
		{"ibs-op:subset=locked+load+store", "declared", 3},
		{"ibs-op:subset=return+branch", "declared", 2},
		{"ibs-op:subset=branch", "declared", 5},
		{"ibs-op:subset=load", "declared", 11},
		{"ibs-op:subset=store", "declared", 7},
		{"ibs-op:subset=load+store", "undeclared", 0},
		{"ibs-op:subset=load+l2-miss", "undeclared", 0},
		{"ibs-op:subset=branch+mispredicted", "undeclared", 0},
		{"ibs-op", "declared", 100},
	};
	for (size_t i = 0; i < PB_ARRAY_SIZE(rows); i++) {
		struct pb_spec spec;
		struct pb_error err = {0};
		CHECK(pb_spec_parse(rows[i].spec, &spec, &err) == 0);
		uint64_t events = 99;
		const char *basis = pb_declared_events(&spec, &t, -1, 10, &events);
		if (strcmp(basis, rows[i].basis))
			fprintf(stderr, "%s: basis %s\n", rows[i].spec, basis);
		CHECK(!strcmp(basis, rows[i].basis));
		CHECK_EQ_U64(events, rows[i].per_iteration * 10);
	}
	/* taken branches come from the workload's own total */
	struct pb_spec spec;
	struct pb_error err = {0};
	CHECK(pb_spec_parse("ibs-op:subset=taken", &spec, &err) == 0);
	uint64_t events = 0;
	CHECK(!strcmp(pb_declared_events(&spec, &t, -1, 10, &events), "declared"));
	CHECK_EQ_U64(events, pb_truth_taken_total(&t, 10));
}

static void bad_subset(void)
{
	struct pb_spec spec;
	struct pb_error err = {0};
	CHECK(pb_spec_parse("ibs-op:subset=load+bogus", &spec, &err) != 0);
	CHECK_EQ_U64(err.code, PB_EXIT_USAGE);
	CHECK_STR_CONTAINS(err.msg, "bogus");
	CHECK_STR_CONTAINS(err.msg, "l1-miss");
	CHECK_STR_CONTAINS(err.msg, "ibs-op:subset=load+bogus");
	memset(&err, 0, sizeof err);
	CHECK(pb_spec_parse("ibs-op:subset=", &spec, &err) != 0);
	CHECK_STR_CONTAINS(err.msg, "empty");
}

int main(void)
{
	declared_mapping();
	bad_subset();
	subset_accuracy();
	return pb_check_done("ibs_subset");
}
