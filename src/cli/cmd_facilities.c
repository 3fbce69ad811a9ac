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
#include "workloads/workload.h"

#include <stdio.h>
#include <string.h>

#define SHOWN_ITERATIONS 1000

static void role_text(const struct pb_spec *spec, enum pb_workload_role role, const char *name,
		      char *buf, size_t len)
{
	const char *why = NULL;
	const char *w = pb_spec_workload(spec, role, &why);
	pb_append(buf, len, "%s%s: %s", buf[0] ? "; " : "", name, w ? w : "n/a");
}

static int fill_row(const struct pb_facility *f, struct pb_facility_model *r, struct pb_error *err)
{
	memset(r, 0, sizeof *r);
	r->f = f;
	struct pb_spec spec;
	if (pb_spec_parse(f->suite_spec, &spec, err))
		return -1;
	const char *natural = pb_spec_workload(&spec, PB_ROLE_NATURAL, NULL);
	struct pb_workload_choice choice;
	struct pb_truth truth;
	if (pb_workload_parse(natural, &choice, err) ||
	    pb_workload_truth(&choice, SHOWN_ITERATIONS, &truth, err))
		return -1;
	pb_format(r->natural, sizeof r->natural, "%s", natural);
	uint64_t events = 0;
	int label = pb_spec_sits_on_instruction(&spec) ? pb_truth_default_label(&truth) : -1;
	pb_format(r->basis, sizeof r->basis, "%s",
		  pb_spec_declare(&spec, &truth, label, SHOWN_ITERATIONS, &events));
	if (!strcmp(r->basis, "declared"))
		pb_format(r->per_iteration, sizeof r->per_iteration, "%.3g",
			  (double)events / SHOWN_ITERATIONS);
	else
		pb_format(r->per_iteration, sizeof r->per_iteration, "-");
	pb_format(r->ip, sizeof r->ip, "%s%s", pb_ip_kind_name(f->ip_kind),
		  f->ip_kind_of ? " (by spec)" : "");
	const char *unit = f->time_based ? "ns" : "events";
	if (f->period_multiple > 1)
		pb_format(r->periods, sizeof r->periods, "%s, >= %llu, multiples of %llu", unit,
			  (unsigned long long)f->min_period,
			  (unsigned long long)f->period_multiple);
	else
		pb_format(r->periods, sizeof r->periods, "%s, >= %llu", unit,
			  (unsigned long long)f->min_period);
	bool excludes = !f->can_exclude || f->can_exclude(&spec);
	pb_format(r->exclusion, sizeof r->exclusion, "%s%s",
		  !excludes ? "not this spec: both levels sampled"
		  : f->samples_every_level ? "yes; samples both where permitted" : "yes",
		  f->filters_in_software ? "; where an option lets it, in software (filtered)"
					 : "");
	pb_format(r->cost, sizeof r->cost, "%s", f->traps_every_event ? "per event and per sample"
								   : "per sample");
	role_text(&spec, PB_ROLE_COST, "cost", r->roles, sizeof r->roles);
	role_text(&spec, PB_ROLE_PREDICT, "prediction", r->roles, sizeof r->roles);
	role_text(&spec, PB_ROLE_LEVELS, "levels", r->roles, sizeof r->roles);
	/* the words come from the facility's own parser table, so they cannot drift */
	if (f->options && f->options->other)
		pb_list_add(r->words, sizeof r->words, "EVENT");
	for (size_t i = 0; f->options && i < f->options->n; i++) {
		char one[96];
		pb_spec_option_usage(&f->options->options[i], one, sizeof one);
		pb_list_add(r->words, sizeof r->words, one);
	}
	if (!r->words[0])
		pb_format(r->words, sizeof r->words, "-");
	return 0;
}

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

static void print_text(const struct pb_facility_model *rows, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		const struct pb_facility_model *r = &rows[i];
		printf("%-10s %s\n", r->f->name, r->f->summary);
		printf("  suite spec %s on %s: basis %s, %s events per iteration\n",
		       r->f->suite_spec, r->natural, r->basis, r->per_iteration);
		printf("  IP %s; periods in %s; leaves out a level: %s; cost %s\n", r->ip,
		       r->periods, r->exclusion, r->cost);
		printf("  workloads: %s\n", r->roles);
		const struct pb_spec_options *t = r->f->options;
		if (t && t->other)
			printf("  :%-22s %s\n", "EVENT[:WORD...]",
			       "the event as perf or libpfm4 names it: the words no option takes");
		for (size_t k = 0; t && k < t->n; k++) {
			char one[96];
			pb_spec_option_usage(&t->options[k], one, sizeof one);
			printf("  :%-22s %s\n", one, t->options[k].help);
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
	unsigned n = 0;
	for (const struct pb_facility *const *f = pb_facility_list(); *f && n < 16; f++)
		if (fill_row(*f, &rows[n++], &err))
			return pb_cli_report("facilities", &err);
	if (json)
		return pb_cli_print_json("facilities", pb_facility_models_json(rows, n), 2);
	if (markdown)
		print_markdown(rows, n);
	else
		print_text(rows, n);
	return PB_EXIT_OK;
}
