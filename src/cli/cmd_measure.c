/* `pesbench measure`: one session — a workload under one facility, period and delivery mode —
 * with every figure of the result: counts, samples, losses, signals, time. The building block
 * a user reaches for to try one configuration, and what the engine benchmark drives. */
#include "cli/commands.h"
#include "cli/options.h"
#include "experiments/point.h"
#include "facilities/facility.h"
#include "perfdata/perfdata.h"
#include "io/results.h"
#include "session/session.h"
#include "runner/runner.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct measure_args {
	struct pb_point_request req;
	const char *workload, *label, *facility, *record;
	bool json, period_given;
	uint64_t period;
	unsigned period_units;
	uint64_t threads, ring_pages;
};

static int set_delivery(void *args, const char *value, struct pb_error *err)
{
	return pb_delivery_parse(value, &((struct measure_args *)args)->req.delivery, err);
}

#define ARG(field, type) PB_AT(struct measure_args, field, type)

static const struct pb_opt measure_options[] = {
	{.name = "facility", .arg = "SPEC", .kind = PB_OPT_STRING, .at = ARG(facility, const char *),
	 .required = "--facility is required (e.g. --facility bp:w); `pesbench probe` lists the "
		     "facilities",
	 .help = "timer:cpu-clock, sw:page-faults, bp:w, uprobe, ... (`pesbench probe` lists "
		 "them); 'none' runs the workload without perf"},
	{.name = "period", .arg = "P", .kind = PB_OPT_PERIOD, .at = ARG(period, uint64_t),
	 .given_at = PB_GIVEN(struct measure_args, period_given), .min = 0, .max = UINT64_MAX >> 1,
	 .units_at = PB_UNITS(struct measure_args, period_units),
	 .help = "events per sample (10000, 10k), or for a timer a time (1ms, 100us; plain: "
		 "ns), at least 1 (default: the facility's default)"},
	{.name = "delivery", .arg = "MODE", .kind = PB_OPT_CALL, .parse = set_delivery,
	 .example = "none", .help = "none (default), signal, sigtrap, drain"},
	{.name = "workload", .arg = "W", .kind = PB_OPT_STRING, .at = ARG(workload, const char *),
	 .help = "NAME[:key=value,...]; default: the facility's natural workload (`pesbench facilities`)"},
	{.name = "iterations", .arg = "N", .kind = PB_OPT_U64, .at = ARG(req.iterations, uint64_t),
	 .min = 1, .max = UINT64_MAX >> 8, .help = "loop iterations per thread (default 100000)"},
	{.name = "threads", .arg = "N", .kind = PB_OPT_THREADS, .at = ARG(threads, uint64_t),
	 .help = "threads, pinned round-robin (default 1)"},
	{.name = "label", .arg = "NAME", .kind = PB_OPT_STRING, .at = ARG(label, const char *),
	 .help = "the labelled instruction a uprobe or bp:x sits on"},
	{.name = "ring", .arg = "PAGES", .kind = PB_OPT_U64, .at = ARG(ring_pages, uint64_t),
	 .min = 1, .max = 1u << 20,
	 .help = "data pages per ring (power of two; default: sized for the run)"},
	{.name = "json", .kind = PB_OPT_FLAG, .at = ARG(json, bool),
	 .help = "one JSON object on stdout instead of the table"},
	{.name = "record", .arg = "FILE", .kind = PB_OPT_STRING, .at = ARG(record, const char *),
	 .help = "also write the measured event's samples and losses as a perf.data (mappings and "
		 "build-ids included: perf script and perf report name them)"},
	{0},
};

const struct pb_cmd_spec pb_cmd_measure_spec = {
	.name = "measure",
	.summary = "run one workload under one facility and account for every sample",
	.description =
		"Runs one workload under one facility and prints what the kernel counted and\n"
		"sampled, what was lost, and the samples expected from the workload's declared truth.\n",
	.options = measure_options,
	.args_size = sizeof(struct measure_args),
};

struct record_to {
	struct pb_perfdata_recorder *r;
	const char *name;
};

static void record_one(void *ctx, const struct perf_event_attr *attr, const struct pb_record *rec)
{
	struct record_to *to = ctx;
	pb_perfdata_recorder_add(to->r, attr, to->name, (uint32_t)getpid(), rec);
}

int pb_cmd_measure(int argc, char **argv)
{
	struct measure_args a = {0};
	pb_point_request_defaults(&a.req);
	a.threads = a.req.threads;
	a.ring_pages = a.req.ring_pages;
	int rest, rc = pb_options_run(&pb_cmd_measure_spec, argc, argv, &a, &rest);
	if (rc >= 0)
		return rc;
	struct pb_point_request req = a.req;
	req.threads = (unsigned)a.threads;
	req.ring_pages = (unsigned)a.ring_pages;
	const char *workload = a.workload, *label = a.label, *facility = a.facility;
	bool json = a.json, period_given = a.period_given;
	struct pb_error err = {0};
	/* a usage error before whatever the machine says of the facility */
	if (pb_period_check("--period", a.period_units, facility, &err))
		return pb_cli_report("measure", &err);
	/* a period of 0 samples nothing, and its figures would divide by it */
	if (period_given && !a.period) {
		pb_fail(&err, PB_EXIT_USAGE, 0,
			"--period 0 samples nothing: give events (ns for timers) per sample, at "
			"least 1; `pesbench verify` checks a facility's count against the workload");
		return pb_cli_report("measure", &err);
	}
	/* the spec is parsed here, once: everything below takes it parsed ("none": no perf) */
	struct pb_spec spec;
	bool no_perf = !strcmp(facility, "none");
	if ((!no_perf && pb_spec_parse(facility, &spec, &err)) ||
	    pb_point_request_set(&req, no_perf ? NULL : &spec, workload, label,
				 period_given ? &a.period : NULL, &err))
		return pb_cli_report("measure", &err);
	/* only where the facility's samples carry the overflow's count (its model says) */
	req.measure_skid = true;
	struct record_to rec = {.name = req.events[0].spec.text};
	if (a.record && pb_perfdata_recorder_open(a.record, &rec.r, &err))
		return pb_cli_report("measure", &err);
	if (a.record) {
		req.on_event0_record = record_one;
		req.event0_record_ctx = &rec;
	}

	struct pb_point point;
	int measured = pb_point_measure(&req, &point, &err);
	if (rec.r && pb_perfdata_recorder_close(rec.r, NULL, measured ? NULL : &err))
		measured = -1;
	if (measured)
		return pb_cli_report("measure", &err);
	int printed = PB_EXIT_OK;
	if (json) {
		struct pb_rvalue run = {.kind = PB_RV_SET, .as.set = &(struct pb_rset){0}};
		pb_point_record(&req, &point, run.as.set);
		printed = pb_cli_print_json("measure", pb_rvalue_json(&run), 2);
		pb_rset_clear(run.as.set);
	} else {
		pb_point_print(stdout, &req, &point);
	}
	pb_point_free(&point);
	return printed;
}
