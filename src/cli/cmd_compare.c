/* `pesbench compare RESULTS...`: the key figures of several runs or machines side by side (the
 * Intel vs AMD tables of the main study). The comparison is present/compare.c's; this file only
 * reads the options and chooses the output. */
#include "cli/commands.h"
#include "cli/options.h"
#include "present/compare.h"

#include <stdio.h>
#include <string.h>

#define MAX_INPUTS 256

struct compare_args {
	const char *paths[MAX_INPUTS];
	size_t npaths;
	bool json, records;
	const char *html;
};

static int add_input(void *args, const char *value, struct pb_error *err)
{
	struct compare_args *a = args;
	if (a->npaths == MAX_INPUTS)
		return pb_fail(err, PB_EXIT_USAGE, 0, "at most %d inputs", MAX_INPUTS);
	a->paths[a->npaths++] = value;
	return 0;
}

static const struct pb_opt compare_options[] = {
	{.name = "json", .kind = PB_OPT_FLAG, .at = PB_AT(struct compare_args, json, bool),
	 .help = "print the comparison as JSON"},
	{.name = "html", .arg = "FILE", .kind = PB_OPT_STRING,
	 .at = PB_AT(struct compare_args, html, const char *),
	 .help = "also write the comparison as an HTML page with plots to FILE"},
	{.name = "records", .kind = PB_OPT_FLAG, .at = PB_AT(struct compare_args, records, bool),
	 .help = "print the inputs' figure records (results.jsonl lines) instead, e.g. to turn "
		 "older results folders into JSONL"},
	{0},
};

const struct pb_cmd_spec pb_cmd_compare_spec = {
	.name = "compare",
	.summary = "set the key figures of two or more runs or machines side by side",
	.operands = "RESULTS [RESULTS...]",
	.description =
		"Sets the key figures of two or more runs side by side: accuracy, bias deviation,\n"
		"cost, overhead, loss and prediction error, one table per experiment, a column\n"
		"per run (runs of one CPU model together), each cell with its 95 % interval and\n"
		"its delta to the row's first run, marked * when the delta exceeds both\n"
		"intervals. RESULTS are results folders, results.json files or results.jsonl\n"
		"files (any number concatenated: one file may hold a whole fleet). Settings\n"
		"that differ only between runs (say --delivery) are named above the table and\n"
		"the rows line up on the rest. docs/fleet.md explains the records.\n",
	.options = compare_options,
	.args_size = sizeof(struct compare_args),
	.positional = add_input,
	.epilogue =
		"Exit 0 on success, 2 for bad usage (fewer than two runs), 4 when the HTML page\n"
		"cannot be written, 6 when an input is missing, corrupt or of another schema.\n",
};

int pb_cmd_compare(int argc, char **argv)
{
	static struct compare_args a;
	memset(&a, 0, sizeof a);
	int rest, rc = pb_options_run(&pb_cmd_compare_spec, argc, argv, &a, &rest);
	if (rc >= 0)
		return rc;
	rc = 0;
	struct pb_error err = {0};
	/* one JSONL file may hold many runs; one folder holds one */
	if (!a.records && (!a.npaths || (a.npaths == 1 && !pb_compare_is_jsonl(a.paths[0])))) {
		pb_fail(&err, PB_EXIT_USAGE, 0,
			"compare needs two or more results (folders, results.json files, or "
			"results.jsonl files holding two or more runs); got %zu; `pesbench report` "
			"shows one",
			a.npaths);
		return pb_cli_report("compare", &err);
	}
	struct pb_compare *c = pb_compare_new();
	if (!c) {
		pb_fail(&err, PB_EXIT_FAILURE, 0, "out of memory");
		return pb_cli_report("compare", &err);
	}
	for (size_t i = 0; i < a.npaths && !rc; i++)
		rc = pb_compare_add(c, a.paths[i], &err) ? -1 : 0;
	if (!rc && a.records) {
		pb_compare_print_records(stdout, c);
	} else if (!rc && !(rc = pb_compare_build(c, &err) ? -1 : 0)) {
		if (a.html && pb_compare_write_html(c, a.html, &err)) {
			err.code = PB_EXIT_OUTPUT;
			rc = -1;
		} else if (a.json) {
			rc = pb_cli_print_json("compare", pb_compare_json(c), 1);
		} else {
			pb_compare_print(stdout, c, 100);
			if (a.html)
				printf("\nHTML page with plots: %s\n", a.html);
		}
	}
	pb_compare_free(c);
	return rc < 0 ? pb_cli_report("compare", &err) : rc;
}
