#include "cli/commands.h"
#include "cli/options.h"
#include "util/error.h"
#include "util/suggest.h"

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help"))
		return pb_cli_help(argc, argv);
	if (!strcmp(argv[1], "--version"))
		return pb_cmd_version(1, argv + 1);
	for (const struct pb_command *c = pb_command_list(); c->spec; c++)
		if (!strcmp(argv[1], c->spec->name))
			return c->fn(argc - 1, argv + 1);
	struct pb_suggest near;
	pb_suggest_init(&near, argv[1]);
	for (const struct pb_command *c = pb_command_list(); c->spec; c++)
		pb_suggest_consider(&near, c->spec->name);
	struct pb_error err = {0};
	pb_suggest_fail(&err, &near, "", "command", "`pesbench --help`");
	fprintf(stderr, "pesbench: %s\n", err.msg);
	return err.code;
}
