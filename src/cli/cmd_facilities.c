/* `pesbench facilities`: every facility's measurement model as its descriptor holds it — the
 * basis of its expectations on its natural workload, its IP relation, its periods and how it
 * excludes a privilege level. The table of docs/facilities.md is this command's
 * --markdown output (scripts/gen-docs.sh), so the documentation cannot drift from the code. */
#include "cli/commands.h"
#include "cli/options.h"
#include "facilities/facility.h"
#include "io/facility_model.h"
#include "util/error.h"
#include "util/text.h"

#include <stdio.h>

static void print_markdown(const struct pb_facility_model *rows, unsigned n)
{
	printf("| facility | suite spec | natural workload | basis | events/iteration | IP | "
	       "periods | leaves out a level | cost | other workloads | spec words |\n");
	printf("|---|---|---|---|---|---|---|---|---|---|---|\n");
	for (unsigned i = 0; i < n; i++) {
		const struct pb_facility_model *r = &rows[i];
		printf("| `%s` | `%s` | `%s` | %s | %s | %s | %s | %s | %s | %s | %s |\n", r->f->name,
		       r->f->suite_spec, r->natural, r->basis, r->per_iteration, r->ip, r->periods,
		       r->exclusion, r->cost, r->roles, r->words);
	}
}

/* Each line wraps at the terminal's 100 columns, its continuation under its text: a cost or an
 * option's help ran to 185. */
static void print_text(const struct pb_facility_model *rows, unsigned n)
{
	char text[1024];
	for (unsigned i = 0; i < n; i++) {
		const struct pb_facility_model *r = &rows[i];
		pb_text_entry(stdout, 0, r->f->name, 10, r->f->summary);
		pb_format(text, sizeof text, "suite spec %s on %s: basis %s, %s events per "
			  "iteration", r->f->suite_spec, r->natural, r->basis, r->per_iteration);
		pb_text_wrapped(stdout, "  ", text, 4);
		pb_format(text, sizeof text, "IP %s; periods in %s; leaves out a level: %s; cost "
			  "%s", r->ip, r->periods, r->exclusion, r->cost);
		pb_text_wrapped(stdout, "  ", text, 4);
		pb_text_wrapped(stdout, "  workloads: ", r->roles, 4);
		const struct pb_spec_options *t = r->f->options;
		if (t && t->other)
			pb_text_entry(stdout, 2, ":EVENT[:WORD...]", 23,
				      "the event as perf or libpfm4 names it: the words no option "
				      "takes");
		for (size_t k = 0; t && k < t->n; k++) {
			char one[96];
			one[0] = ':';
			pb_spec_option_usage(&t->options[k], one + 1, sizeof one - 1);
			pb_text_entry(stdout, 2, one, 23, t->options[k].help);
		}
	}
}

struct facilities_args {
	bool markdown, json;
};

static const struct pb_opt facilities_options[] = {
	{.name = "markdown", .kind = PB_OPT_FLAG, .at = PB_AT(struct facilities_args, markdown, bool),
	 .help = "a Markdown table (the one in docs/facilities.md)"},
	{.name = "json", .kind = PB_OPT_FLAG, .at = PB_AT(struct facilities_args, json, bool),
	 .help = "the same as JSON"},
	{0},
};

const struct pb_cmd_spec pb_cmd_facilities_spec = {
	.name = "facilities",
	.summary = "every facility's measurement model: basis, IP relation, periods, levels",
	.description =
		"Prints each facility's measurement model as pesbench uses it: the spec the default\n"
		"suite runs, its natural workload and the basis of its expected samples there\n"
		"(declared: the workload's declared events; count: the kernel's own count; time:\n"
		"the timer's running time), where a sample's IP lands (exact, next instruction,\n"
		"skid), the period unit and legal periods, and whether it can leave out a\n"
		"privilege level. Nothing is opened: the model is the same on every machine.\n",
	.options = facilities_options,
	.args_size = sizeof(struct facilities_args),
	.epilogue = "--markdown and --json exclude each other. Exit 0 on success, 2 for bad usage.\n",
};

int pb_cmd_facilities(int argc, char **argv)
{
	struct facilities_args a = {0};
	int rest, rc0 = pb_options_run(&pb_cmd_facilities_spec, argc, argv, &a, &rest);
	if (rc0 >= 0)
		return rc0;
	bool markdown = a.markdown, json = a.json;
	struct pb_error err = {0};
	if (markdown && json) {
		pb_fail(&err, PB_EXIT_USAGE, 0, "--markdown and --json exclude each other");
		return pb_cli_report("facilities", &err);
	}
	struct pb_facility_model rows[16];
	struct pb_spec spec;
	unsigned n = 0;
	for (const struct pb_facility *const *f = pb_facility_list(); *f && n < 16; f++)
		if (pb_spec_parse((*f)->suite_spec, &spec, &err) ||
		    pb_facility_model_fill(*f, &spec, &rows[n++], &err))
			return pb_cli_report("facilities", &err);
	if (json)
		return pb_cli_print_json("facilities", pb_facility_models_json(rows, n), 2);
	if (markdown)
		print_markdown(rows, n);
	else
		print_text(rows, n);
	return PB_EXIT_OK;
}
