/* `pesbench measure`: one session — a workload under one facility, period and delivery mode —
 * with every figure of the result: counts, samples, losses, signals, time. The building block
 * a user reaches for to try one configuration, and what the engine benchmark drives. */
#include "cli/commands.h"
#include "cli/options.h"
#include "experiments/point.h"
#include "facilities/facility.h"
#include "io/results.h"
#include "session/session.h"
#include "workloads/runner.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *out)
{
	fprintf(out,
		"usage: pesbench measure --facility SPEC [--period P] [--delivery MODE]\n"
		"                        [--workload NAME[:k=v,...]] [--iterations N] [--threads N]\n"
		"                        [--label NAME] [--ring PAGES] [--json]\n\n"
		"Runs one workload under one facility and prints what the kernel counted and\n"
		"sampled, what was lost, and the samples expected from the workload's declared truth.\n\n"
		"  --facility SPEC   timer:cpu-clock, sw:page-faults, bp:w, uprobe, ... (`pesbench\n"
		"                    probe` lists them); 'none' runs the workload without perf\n"
		"  --period P        events (ns for timers) per sample; 0 counts only (default: the\n"
		"                    facility's default)\n"
		"  --delivery MODE   none (default), signal, sigtrap, drain\n"
		"  --workload W      default: the facility's natural workload (see README)\n"
		"  --iterations N    loop iterations per thread (default 100000)\n"
		"  --threads N       threads, pinned round-robin (default 1)\n"
		"  --label NAME      the labelled instruction a uprobe or bp:x sits on\n"
		"  --ring PAGES      data pages per ring (power of two; default: sized for the run)\n"
		"  --json            one JSON object on stdout instead of the table\n");
}

int pb_cmd_measure(int argc, char **argv)
{
	struct pb_point_request req;
	pb_point_request_defaults(&req);
	const char *workload = NULL, *label = NULL, *facility = NULL;
	bool json = false, period_given = false;
	struct pb_error err = {0};
	struct pb_option_parser op;
	static const char *const flags[] = {"json", NULL};
	pb_options_begin(&op, argc, argv, flags);
	const char *name, *value;
	int r;
	while ((r = pb_options_next(&op, &name, &value)) > 0) {
		if (!strcmp(name, "help")) {
			usage(stdout);
			return PB_EXIT_OK;
		} else if (!strcmp(name, "json")) {
			json = true;
		} else if (!*name) {
			pb_fail(&err, PB_EXIT_USAGE, 0, "unexpected argument '%s'", value);
			return pb_cli_report("measure", &err);
		} else if (!strcmp(name, "facility")) {
			facility = value;
		} else if (!strcmp(name, "workload")) {
			workload = value;
		} else if (!strcmp(name, "label")) {
			label = value;
		} else if (!strcmp(name, "period")) {
			if (pb_parse_u64("--period", value, 0, UINT64_MAX >> 1, &req.period, &err))
				return pb_cli_report("measure", &err);
			period_given = true;
		} else if (!strcmp(name, "delivery")) {
			if (pb_delivery_parse(value, &req.delivery, &err))
				return pb_cli_report("measure", &err);
		} else if (!strcmp(name, "iterations")) {
			if (pb_parse_u64("--iterations", value, 1, UINT64_MAX >> 8, &req.iterations,
					 &err))
				return pb_cli_report("measure", &err);
		} else if (!strcmp(name, "threads")) {
			uint64_t t;
			if (pb_parse_threads("--threads", value, &t, &err))
				return pb_cli_report("measure", &err);
			req.threads = (unsigned)t;
		} else if (!strcmp(name, "ring")) {
			uint64_t pages;
			if (pb_parse_u64("--ring", value, 1, 1u << 20, &pages, &err))
				return pb_cli_report("measure", &err);
			req.ring_pages = (unsigned)pages;
		} else {
			return pb_cli_unknown_option("measure", name);
		}
	}
	if (r < 0)
		return pb_cli_report("measure", &op.err);
	if (!facility) {
		pb_fail(&err, PB_EXIT_USAGE, 0, "--facility is required (e.g. --facility bp:w); "
			"`pesbench probe` lists the facilities");
		return pb_cli_report("measure", &err);
	}
	if (pb_point_request_set(&req, facility, workload, label, period_given, &err))
		return pb_cli_report("measure", &err);

	struct pb_point point;
	if (pb_point_measure(&req, &point, &err))
		return pb_cli_report("measure", &err);
	if (json) {
		struct pb_rvalue run = {.kind = PB_RV_SET, .as.set = &(struct pb_rset){0}};
		pb_point_record(&req, &point, run.as.set);
		json_t *obj = pb_rvalue_json(&run);
		char *text = json_dumps(obj, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		puts(text);
		free(text);
		json_decref(obj);
		pb_rset_clear(run.as.set);
	} else {
		pb_point_print(stdout, &req, &point);
	}
	pb_point_free(&point);
	return PB_EXIT_OK;
}
