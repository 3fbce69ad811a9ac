/* The command list, and the help built from it and from every command's option table: the
 * program's usage, `pesbench help --options` and the man page pesbench(1). */
#include "cli/commands.h"

#include "cli/options.h"
#include "util/error.h"
#include "util/suggest.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* The order of `pesbench --help` and of the man page. */
static const struct pb_command commands[] = {
	{&pb_cmd_probe_spec, pb_cmd_probe},
	{&pb_cmd_workloads_spec, pb_cmd_workloads},
	{&pb_cmd_verify_spec, pb_cmd_verify},
	{&pb_cmd_run_spec, pb_cmd_run},
	{&pb_cmd_measure_spec, pb_cmd_measure},
	{&pb_cmd_report_spec, pb_cmd_report},
	{&pb_cmd_compare_spec, pb_cmd_compare},
	{&pb_cmd_plan_spec, pb_cmd_plan},
	{&pb_cmd_profile_spec, pb_cmd_profile},
	{&pb_cmd_attr_spec, pb_cmd_attr},
	{&pb_cmd_facilities_spec, pb_cmd_facilities},
	{&pb_cmd_perfdata_spec, pb_cmd_perfdata},
	{&pb_cmd_version_spec, pb_cmd_version},
	{&pb_cmd_capture_spec, pb_cmd_capture},
	{&pb_cmd_replay_spec, pb_cmd_replay},
	{0},
};

const struct pb_command *pb_command_list(void)
{
	return commands;
}

static const char tagline[] =
	"Measures how far this machine's event sampling can be trusted, and what it costs.";
static const char exit_codes[] =
	"Exit codes: 0 ok, 1 run-time failure, 2 bad usage or input, 3 facility unavailable,\n"
	"4 output error, 5 verification mismatch, 6 bad input file, 130 interrupted.\n";

/* The man page's EXAMPLES: command lines a user starts from. Each is parsed with its command's
 * option table by `pesbench help --examples` (tests/cli_options.sh), so none can name an
 * option or a value the program does not take. */
static const struct {
	const char *command, *args, *what;
} examples[] = {
	{"run", "",
	 "Every experiment on every facility this machine has; results.json and report.html go "
	 "to results/<UTC time>/."},
	{"run", "accuracy cost -f timer -f page-faults -o results/mine",
	 "Can I trust the timer and page-fault sampling here, and what does a sample cost? Two "
	 "experiments on two facilities (page-faults is perf's name for sw:page-faults)."},
	{"run", "interval -f timer:task-clock -c 1ms,100us,10us",
	 "The timer's accuracy at three periods, given as times."},
	{"measure", "-e cycles -c 10k -w accuracy",
	 "One workload under perf's -e cycles -c 10000 (hw:cycles), every sample accounted for."},
	{"measure", "-f bp:w -t 2", "A data breakpoint on its natural workload, two threads."},
	{"verify", "accuracy --json",
	 "Check the accuracy workload's declared counts against exact oracles, as JSON."},
	{"plan", "-f timer --budget 2 -- gzip -k big.file",
	 "The shortest timer period that keeps gzip's overhead under 2 %."},
	{"profile", "-e cpu-clock -c 1ms -- ./myprogram",
	 "Sample a program of yours every millisecond and print where its time went."},
	{"compare", "results/before results/after",
	 "Two runs side by side, figure by figure."},
	{"attr", "page-faults -c 5k", "The perf_event_attr pesbench opens for perf's page-faults "
				      "-c 5000, nothing opened."},
	{"facilities", "--json", "Every facility's model: basis, IP relation, legal periods."},
};

/* Parses one example with its command's table; 0, or -1 with err saying why. */
static int example_parses(unsigned i, struct pb_error *err)
{
	const struct pb_cmd_spec *spec = NULL;
	for (const struct pb_command *c = commands; c->spec; c++)
		if (!strcmp(c->spec->name, examples[i].command))
			spec = c->spec;
	if (!spec)
		return pb_fail(err, PB_EXIT_FAILURE, 0, "no command %s", examples[i].command);
	char words[256];
	snprintf(words, sizeof words, "%s", examples[i].args);
	char *argv[32] = {(char *)examples[i].command};
	int argc = 1;
	char *save = NULL;
	for (char *w = strtok_r(words, " ", &save); w && argc < 31; w = strtok_r(NULL, " ", &save))
		argv[argc++] = w;
	void *args = calloc(1, spec->args_size);
	if (!args)
		return pb_fail(err, PB_EXIT_FAILURE, ENOMEM, "out of memory");
	int rest;
	enum pb_parse_result r = pb_options_parse(spec, argc, argv, args, &rest, err);
	free(args);
	return r == PB_PARSED ? 0 : -1;
}

static void print_examples(FILE *out, bool roff)
{
	for (unsigned i = 0; i < sizeof examples / sizeof examples[0]; i++) {
		char line[320];
		snprintf(line, sizeof line, "pesbench %s%s%s", examples[i].command,
			 examples[i].args[0] ? " " : "", examples[i].args);
		if (roff) {
			fputs(".TP\n.B ", out);
			pb_roff_text(out, line);
			pb_roff_text(out, examples[i].what);
		} else {
			fprintf(out, "  %s\n      ", line);
			pb_put_wrapped(out, examples[i].what, 6, 6);
		}
	}
}

static void usage(FILE *out)
{
	fprintf(out, "usage: pesbench COMMAND [OPTIONS]\n\n%s\n\ncommands:\n", tagline);
	for (const struct pb_command *c = commands; c->spec; c++)
		fprintf(out, "  %-10s %s\n", c->spec->name, c->spec->summary);
	fprintf(out, "\n`pesbench COMMAND --help` describes a command, `pesbench help --man` prints "
		     "the manual\npage, `pesbench help --examples` command lines to start from, "
		     "`pesbench help --options`\nevery command's options, one a line, `pesbench help "
		     "--completion` a bash completion.\n%s", exit_codes);
}

void pb_cli_man(FILE *out)
{
	fprintf(out, ".\\\" Generated by `pesbench help --man` from the option tables; do not edit.\n"
		     ".TH PESBENCH 1 \"\" \"pesbench %s\" \"User Commands\"\n"
		     ".SH NAME\n"
		     "pesbench \\- measures how far this machine's event sampling can be trusted, "
		     "and what it costs\n"
		     ".SH SYNOPSIS\n"
		     ".B pesbench\n.I COMMAND\n[\\fIOPTIONS\\fR]\n.br\n"
		     ".B pesbench\n\\fICOMMAND\\fR \\fB\\-\\-help\\fR\n"
		     ".SH DESCRIPTION\n", PB_VERSION);
	pb_roff_text(out, tagline);
	fputs(".SH COMMANDS\n", out);
	for (const struct pb_command *c = commands; c->spec; c++)
		pb_options_man(c->spec, out);
	fputs(".SH EXAMPLES\n", out);
	print_examples(out, true);
	fputs(".SH EXIT STATUS\n", out);
	pb_roff_text(out, exit_codes);
	fputs(".SH SEE ALSO\n.BR perf (1),\n.BR perf_event_open (2),\n.BR perf\\-record (1)\n",
	      out);
}

int pb_cli_help(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return PB_EXIT_USAGE;
	}
	/* argv[1] is "--help", "-h" or "help" */
	if (argc == 3 && !strcmp(argv[1], "help") && !strcmp(argv[2], "--man")) {
		pb_cli_man(stdout);
		return fflush(stdout) ? PB_EXIT_OUTPUT : PB_EXIT_OK;
	}
	if (argc == 3 && !strcmp(argv[1], "help") && !strcmp(argv[2], "--completion")) {
		pb_cli_completion(stdout);
		return fflush(stdout) ? PB_EXIT_OUTPUT : PB_EXIT_OK;
	}
	if (argc == 3 && !strcmp(argv[1], "help") && !strcmp(argv[2], "--commands")) {
		fputs("| command | what it does |\n|---|---|\n", stdout);
		for (const struct pb_command *c = commands; c->spec; c++)
			printf("| `pesbench %s` | %s |\n", c->spec->name, c->spec->summary);
		return fflush(stdout) ? PB_EXIT_OUTPUT : PB_EXIT_OK;
	}
	if (argc == 3 && !strcmp(argv[1], "help") && !strcmp(argv[2], "--examples")) {
		print_examples(stdout, false);
		int rc = PB_EXIT_OK;
		for (unsigned i = 0; i < sizeof examples / sizeof examples[0]; i++) {
			struct pb_error err = {0};
			if (example_parses(i, &err)) {
				fprintf(stderr, "pesbench help: the example `pesbench %s %s` does not "
					"parse: %s\n", examples[i].command, examples[i].args, err.msg);
				rc = PB_EXIT_FAILURE;
			}
		}
		return fflush(stdout) ? PB_EXIT_OUTPUT : rc;
	}
	if (argc == 3 && !strcmp(argv[1], "help") && !strcmp(argv[2], "--options")) {
		for (const struct pb_command *c = commands; c->spec; c++)
			pb_options_list(c->spec, stdout);
		return fflush(stdout) ? PB_EXIT_OUTPUT : PB_EXIT_OK;
	}
	if (argc == 3 && !strcmp(argv[1], "help"))
		for (const struct pb_command *c = commands; c->spec; c++)
			if (!strcmp(argv[2], c->spec->name)) {
				pb_options_help(c->spec, stdout);
				return PB_EXIT_OK;
			}
	if (argc > 2 && !strcmp(argv[1], "help")) {
		static const char *const topics[] = {"--man", "--options", "--examples",
						      "--commands", "--completion"};
		struct pb_suggest near;
		pb_suggest_init(&near, argv[2]);
		for (const struct pb_command *c = commands; c->spec; c++)
			pb_suggest_consider(&near, c->spec->name);
		for (size_t i = 0; i < sizeof topics / sizeof topics[0]; i++)
			pb_suggest_consider(&near, topics[i]);
		struct pb_error err = {0};
		pb_suggest_fail(&err, &near, "", "topic", "`pesbench --help`");
		fprintf(stderr, "pesbench help: %s\n", err.msg);
		return PB_EXIT_USAGE;
	}
	usage(stdout);
	return PB_EXIT_OK;
}
