#include "cli/commands.h"
#include "util/error.h"
#include "util/kit.h"

#include <stdio.h>
#include <string.h>

/* One line per subcommand; the order is the order of `pesbench --help`. */
static const struct pb_command commands[] = {
	{"probe", pb_cmd_probe, "list every sampling facility, available or not, and why"},
	{"workloads", pb_cmd_workloads, "list the workloads with their parameters and declared truth"},
	{"verify", pb_cmd_verify, "check workload declarations against exact oracles"},
	{"run", pb_cmd_run, "run the experiments (default: the whole suite) and write results"},
	{"measure", pb_cmd_measure, "run one workload under one facility and account for every sample"},
	{"report", pb_cmd_report, "draw the plots and write report.html for a results folder"},
	{"compare", pb_cmd_compare, "set two or more results files side by side"},
	{"plan", pb_cmd_plan, "recommend a period and ring for an overhead budget on a command"},
	{"profile", pb_cmd_profile, "how far a sampled profile of a program is from callgrind's exact one"},
	{"attr", pb_cmd_attr, "the perf_event_attr and measurement model pesbench uses for a spec"},
	{"facilities", pb_cmd_facilities, "every facility's measurement model: basis, IP relation, periods, levels"},
	{"perfdata", pb_cmd_perfdata, "read a perf.data: samples, losses, per-IP histogram, IBS decode"},
};

static void usage(FILE *out)
{
	fprintf(out, "usage: pesbench COMMAND [OPTIONS]\n\n"
		     "Measures how far this machine's event sampling can be trusted, and what it costs.\n\n"
		     "commands:\n");
	for (size_t i = 0; i < PB_ARRAY_SIZE(commands); i++)
		fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
	fprintf(out, "\n`pesbench COMMAND --help` describes a command. Exit codes: 0 ok, 1 run-time "
		     "failure,\n2 bad usage or input, 3 facility unavailable, 4 output error, 5 "
		     "verification mismatch,\n6 bad input file, 130 interrupted.\n");
}

int main(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? PB_EXIT_USAGE : PB_EXIT_OK;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("pesbench %s\n", PB_VERSION);
		return PB_EXIT_OK;
	}
	for (size_t i = 0; i < PB_ARRAY_SIZE(commands); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "pesbench: unknown command '%s'; `pesbench --help` lists the commands\n",
		argv[1]);
	return PB_EXIT_USAGE;
}
