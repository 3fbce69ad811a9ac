/* `pesbench attr SPEC`: the perf_event_attr pesbench would open for a facility spec, field by
 * field under the kernel header's names (as `perf record -vv` prints them), on this machine or
 * on a saved tree, with the facility's model for the workload: the basis of the expectation,
 * the declared events per iteration, the IP relation. The same attr the session builds. */
#include "cli/commands.h"
#include "cli/options.h"
#include "experiments/point.h"
#include "facilities/facility.h"
#include "io/attr_fields.h"
#include "session/session.h"
#include "runner/runner.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct attr_args {
	const char *spec_text, *root, *workload;
	bool json, period_given;
	unsigned period_units;
	uint64_t period;
};

static int set_spec(void *args, const char *value, struct pb_error *err)
{
	struct attr_args *a = args;
	if (a->spec_text)
		return pb_fail(err, PB_EXIT_USAGE, 0, "unexpected argument '%s'; give one spec", value);
	a->spec_text = value;
	return 0;
}

#define ARG(field, type) PB_AT(struct attr_args, field, type)

static const struct pb_opt attr_options[] = {
	{.name = "root", .arg = "DIR", .kind = PB_OPT_STRING, .at = ARG(root, const char *),
	 .help = "a saved or constructed sysfs/procfs tree (tests/fixtures/sysfs-zen5) instead of "
		 "this machine"},
	{.name = "workload", .arg = "W", .kind = PB_OPT_STRING, .at = ARG(workload, const char *),
	 .help = "the workload (default: the facility's natural one)"},
	{.name = "period", .arg = "P", .kind = PB_OPT_PERIOD, .at = ARG(period, uint64_t),
	 .given_at = PB_GIVEN(struct attr_args, period_given), .min = 1, .max = INT64_MAX,
	 .units_at = PB_UNITS(struct attr_args, period_units),
	 .help = "events per sample (10000, 10k), or for a timer a time (1ms, 100us; plain: "
		 "ns); default: the facility's"},
	{.name = "json", .kind = PB_OPT_FLAG, .at = ARG(json, bool),
	 .help = "machine-readable output"},
	{0},
};

const struct pb_cmd_spec pb_cmd_attr_spec = {
	.name = "attr",
	.summary = "the perf_event_attr and measurement model pesbench uses for a spec",
	.operands = "SPEC",
	.description =
		"Prints the perf_event_attr pesbench opens for a facility spec (field names as in\n"
		"<linux/perf_event.h> and `perf record -vv`), and the facility's model for the\n"
		"workload: the basis of expected samples, the declared events per iteration, and\n"
		"where a sample's IP lands. Nothing is opened.\n",
	.options = attr_options,
	.args_size = sizeof(struct attr_args),
	.positional = set_spec,
	.epilogue =
		"Exit status: 0; 2 bad usage; 3 the facility is not available on that machine (or\n"
		"failed its self-test here).\n",
};

int pb_cmd_attr(int argc, char **argv)
{
	struct attr_args a = {0};
	int rest, rc0 = pb_options_run(&pb_cmd_attr_spec, argc, argv, &a, &rest);
	if (rc0 >= 0)
		return rc0;
	const char *spec_text = a.spec_text, *root = a.root, *workload = a.workload;
	bool json = a.json, period_given = a.period_given;
	uint64_t period = a.period;
	struct pb_error err = {0};
	if (!spec_text) {
		pb_fail(&err, PB_EXIT_USAGE, 0, "give a facility spec, e.g. pesbench attr timer:cpu-clock; "
			"`pesbench probe` lists them");
		return pb_cli_report("attr", &err);
	}
	static struct pb_machine fixture;
	const struct pb_machine *m = pb_machine_live();
	if (root) {
		struct stat st;
		if (stat(root, &st) || !S_ISDIR(st.st_mode)) {
			pb_fail(&err, PB_EXIT_USAGE, 0, "--root %s is not a directory", root);
			return pb_cli_report("attr", &err);
		}
		pb_machine_probe(&fixture, root);
		m = &fixture;
	}

	struct pb_point_request req;
	pb_point_request_defaults(&req);
	req.machine = m;
	struct pb_spec parsed;
	if (pb_period_check("--period", a.period_units, spec_text, &err) ||
	    pb_spec_parse(spec_text, &parsed, &err) ||
	    pb_point_request_set(&req, &parsed, workload, NULL, period_given ? &period : NULL,
				 &err))
		return pb_cli_report("attr", &err);
	const struct pb_spec *spec = &req.events[0].spec;
	struct pb_instance in;
	if (pb_instance_init(&in, &req.workload, 1000, 1, &err))
		return pb_cli_report("attr", &err);
	struct pb_target target = {0};
	in.code_label = -1;
	for (unsigned i = 0; i < in.truth.nlabels && in.code_label < 0; i++)
		if (in.truth.labels[i].kinds && in.truth.labels[i].per_iteration)
			in.code_label = (int)i;
	int rc = pb_instance_prepare(&in, 0, &target);
	struct pb_event_config ec = {.spec = *spec, .period = req.events[0].period,
				     .exclude_kernel = req.exclude_kernel,
				     .exclude_user = req.exclude_user};
	struct perf_event_attr attr;
	if (rc || pb_event_attr(m, &ec, &target, &attr, &err)) {
		pb_instance_free(&in);
		if (!err.msg[0])
			pb_fail(&err, PB_EXIT_FAILURE, 0, "the workload could not be prepared");
		return pb_cli_report("attr", &err);
	}
	uint64_t declared = 0;
	const char *basis = pb_declared_events(spec, &in.truth, in.code_label, 1000, &declared);
	const char *ip = pb_ip_kind_name(pb_spec_ip_kind(m, spec));
	char params[256];
	pb_workload_params_text(&req.workload, params, sizeof params);

	struct pb_attr_field fields[40];
	unsigned n = pb_attr_fields(&attr, fields);
	if (json) {
		struct pb_attr_model model = {
			.spec = spec->text, .machine = root ? root : "live",
			.workload = req.workload.workload->name, .params = params, .basis = basis,
			.declared_per_1000 = declared, .ip = ip, .exclude_kernel = req.exclude_kernel,
		};
		rc = pb_cli_print_json("attr", pb_attr_json(&model, fields, n), 2);
	} else {
		printf("perf_event_attr for %s (%s):\n", spec->text, root ? root : "this machine");
		for (unsigned i = 0; i < n; i++)
			if (fields[i].value || i < 8)
				printf(fields[i].hex ? "  %-24s 0x%llx\n" : "  %-24s %llu\n",
				       fields[i].name, (unsigned long long)fields[i].value);
		printf("model on %s:%s\n", req.workload.workload->name, params);
		printf("  basis                    %s\n", basis);
		if (!strcmp(basis, "declared"))
			printf("  declared events          %llu per 1000 iterations\n",
			       (unsigned long long)declared);
		printf("  ip                       %s\n", ip);
	}
	pb_instance_free(&in);
	return rc;
}
