/* Every pesbench subcommand: int pb_cmd_NAME(int argc, char **argv), argv[0] = "NAME", with
 * its option table pb_cmd_NAME_spec (cli/options.h). Returns an exit code from util/error.h.
 * Each lives in src/cli/cmd_NAME.c; the list is in src/cli/commands.c. */
#ifndef PB_COMMANDS_H
#define PB_COMMANDS_H

#include "cli/output.h"

#include <stdio.h>

struct pb_cmd_spec;

struct pb_command {
	const struct pb_cmd_spec *spec; /* name, summary, options */
	int (*fn)(int argc, char **argv);
};

#define PB_DECLARE_COMMAND(name)                                                          \
	int pb_cmd_##name(int argc, char **argv);                                          \
	extern const struct pb_cmd_spec pb_cmd_##name##_spec

PB_DECLARE_COMMAND(probe);
PB_DECLARE_COMMAND(measure);
PB_DECLARE_COMMAND(run);
PB_DECLARE_COMMAND(workloads);
PB_DECLARE_COMMAND(verify);
PB_DECLARE_COMMAND(profile);
PB_DECLARE_COMMAND(report);
PB_DECLARE_COMMAND(compare);
PB_DECLARE_COMMAND(plan);
PB_DECLARE_COMMAND(perfdata);
PB_DECLARE_COMMAND(attr);
PB_DECLARE_COMMAND(facilities);
PB_DECLARE_COMMAND(version);
PB_DECLARE_COMMAND(capture);
PB_DECLARE_COMMAND(replay);

/* The commands in the order of `pesbench --help`, ending with {0}. */
const struct pb_command *pb_command_list(void);
/* `pesbench`, `pesbench --help`, `pesbench help [--man | --options]`: the program's own help;
 * returns the exit code. */
int pb_cli_help(int argc, char **argv);
/* pesbench(1) in roff, from the command list and every command's option table. */
void pb_cli_man(FILE *out);
/* The bash completion script, from the same tables (src/cli/completion.c). */
void pb_cli_completion(FILE *out);

/* pb_cli_report and the JSON printer: cli/output.h. */

#endif
