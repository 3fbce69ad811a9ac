/* `pesbench replay DIR`: a capture bundle's results computed again offline and compared with
 * the stored ones. */
#include "bundle/bundle.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "util/error.h"

#include <stdio.h>

struct replay_args {
	const char *dir;
};

static int set_dir(void *args, const char *value, struct pb_error *err)
{
	struct replay_args *a = args;
	if (a->dir)
		return pb_fail(err, PB_EXIT_USAGE, 0, "unexpected argument '%s': give one DIR",
			       value);
	a->dir = value;
	return 0;
}

static const struct pb_opt replay_options[] = {{0}};

const struct pb_cmd_spec pb_cmd_replay_spec = {
	.name = "replay",
	.summary = "recompute a capture bundle's results offline and compare with the stored ones",
	.operands = "DIR",
	.description =
		"Reads the bundle `pesbench capture` wrote into DIR and computes everything again\n"
		"without running anything: the probe from its machine tree, and for every point the\n"
		"decoding of its records, the attribution to instructions and the accuracy figures,\n"
		"and for every sampling self-test run its samples and those inside its loop.\n"
		"Each is printed as identical to what the capture stored, or with its differences\n"
		"(path: stored -> recomputed). The machine replaying does not matter.\n",
	.options = replay_options,
	.args_size = sizeof(struct replay_args),
	.positional = set_dir,
	.epilogue = "Exit 0 when every result is identical, 5 when one differs (a decoder or a\n"
		    "computation changed since the capture), 2 for bad usage, 6 when the bundle is\n"
		    "missing, damaged or of another schema.\n",
};

int pb_cmd_replay(int argc, char **argv)
{
	struct replay_args a = {0};
	int rest, rc = pb_options_run(&pb_cmd_replay_spec, argc, argv, &a, &rest);
	if (rc >= 0)
		return rc;
	struct pb_error err = {0};
	if (!a.dir) {
		pb_fail(&err, PB_EXIT_USAGE, 0, "DIR is required: pesbench replay DIR");
		return pb_cli_report("replay", &err);
	}
	struct pb_replay_report rep;
	if (pb_replay(a.dir, stdout, &rep, &err))
		return pb_cli_report("replay", &err);
	if (rep.differ || rep.selftest_differ || !rep.probe_identical) {
		printf("replay: %u of %u points and %u of %u self-test runs differ%s\n", rep.differ,
		       rep.points, rep.selftest_differ, rep.selftest_runs,
		       rep.probe_identical ? "" : ", and the probe differs");
		return PB_EXIT_MISMATCH;
	}
	printf("replay: all %u points, %u self-test runs and the probe identical\n", rep.points,
	       rep.selftest_runs);
	return PB_EXIT_OK;
}
