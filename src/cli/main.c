#include "cli/commands.h"
#include "cli/options.h"
#include "util/error.h"
#include "util/kit.h"

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help"))
		return pb_cli_help(argc, argv);
	if (!strcmp(argv[1], "--version")) {
		printf("pesbench %s\n", PB_VERSION);
		return PB_EXIT_OK;
	}
	for (const struct pb_command *c = pb_command_list(); c->spec; c++)
		if (!strcmp(argv[1], c->spec->name))
			return c->fn(argc - 1, argv + 1);
	fprintf(stderr, "pesbench: unknown command '%s'; `pesbench --help` lists the commands\n",
		argv[1]);
	return PB_EXIT_USAGE;
}
