/* `pesbench version` (and `pesbench --version`): the program's version, and with --json the
 * libraries it was built with, for a bug report or for telling two results folders apart. */
#include "cli/commands.h"
#include "cli/options.h"

#include <stdbool.h>
#include <stdio.h>

struct version_args {
	bool json;
};

static const struct pb_opt version_options[] = {
	{.name = "json", .kind = PB_OPT_FLAG, .at = PB_AT(struct version_args, json, bool),
	 .help = "print {\"version\": ..., \"jansson\": ..., \"demangler\": ...} instead"},
	{0},
};

const struct pb_cmd_spec pb_cmd_version_spec = {
	.name = "version",
	.summary = "print pesbench's version (also: pesbench --version)",
	.description = "Prints \"pesbench VERSION\" on one line.\n",
	.options = version_options,
	.args_size = sizeof(struct version_args),
};

int pb_cmd_version(int argc, char **argv)
{
	struct version_args a = {0};
	int rest, rc = pb_options_run(&pb_cmd_version_spec, argc, argv, &a, &rest);
	if (rc >= 0)
		return rc;
	if (a.json)
		return pb_cli_print_version(PB_VERSION);
	printf("pesbench %s\n", PB_VERSION);
	return fflush(stdout) ? PB_EXIT_OUTPUT : PB_EXIT_OK;
}
