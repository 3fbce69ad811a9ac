/* Every pesbench subcommand: int pb_cmd_NAME(int argc, char **argv), argv[0] = "NAME".
 * Returns an exit code from util/error.h. Each lives in src/cli/cmd_NAME.c. */
#ifndef PB_COMMANDS_H
#define PB_COMMANDS_H

struct pb_command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

int pb_cmd_probe(int argc, char **argv);
int pb_cmd_measure(int argc, char **argv);
int pb_cmd_run(int argc, char **argv);
int pb_cmd_workloads(int argc, char **argv);
int pb_cmd_verify(int argc, char **argv);
int pb_cmd_profile(int argc, char **argv);
int pb_cmd_report(int argc, char **argv);
int pb_cmd_compare(int argc, char **argv);
int pb_cmd_plan(int argc, char **argv);
int pb_cmd_perfdata(int argc, char **argv);
int pb_cmd_attr(int argc, char **argv);
int pb_cmd_facilities(int argc, char **argv);

/* Reports an error on stderr as "pesbench NAME: message" and returns its exit code. */
struct pb_error;
int pb_cli_report(const char *command, const struct pb_error *err);
/* Reports "unknown option --NAME; see `pesbench COMMAND --help`" and returns PB_EXIT_USAGE. */
int pb_cli_unknown_option(const char *command, const char *name);

#endif
