/* `pesbench workloads`: every workload with its parameters, declared truth per iteration,
 * labelled instructions and the assumptions that cannot be measured here. */
#include "cli/commands.h"
#include "cli/options.h"
#include "io/workload_json.h"
#include "util/error.h"
#include "util/kit.h"
#include "util/text.h"
#include "workloads/workload.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* Truth is shown for one iteration; the watched-data totals for this many. */
#define SHOWN_ITERATIONS 1000

static void param_range(const struct pb_param_def *d, char *buf, size_t len)
{
	if (!d->choices) {
		snprintf(buf, len, "%" PRId64 "..%" PRId64, d->min, d->max);
		return;
	}
	size_t used = 0;
	buf[0] = '\0';
	for (unsigned i = 0; d->choices[i] && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? "|" : "", d->choices[i]);
}

/* Each line wraps at the terminal's 100 columns, its continuation under its text: a summary or
 * the counts per iteration ran to 140. */
static void print_text(const struct pb_workload_choice *c, const struct pb_truth *t)
{
	const struct pb_workload *w = c->workload;
	char buf[2048], kinds[96], first[160];
	pb_text_entry(stdout, 0, w->name, (int)strlen(w->name) + 1, w->summary);
	for (unsigned i = 0; i < w->nparams; i++) {
		const struct pb_param_def *d = &w->params[i];
		char value[32];
		if (d->choices)
			snprintf(value, sizeof value, "%s", d->choices[c->params[i]]);
		else
			snprintf(value, sizeof value, "%" PRId64, c->params[i]);
		param_range(d, buf, sizeof buf);
		pb_format(first, sizeof first, "  param %-8s = %-10s ", d->name, value);
		char text[2200];
		pb_format(text, sizeof text, "(%s) %s", buf, d->summary);
		pb_text_wrapped(stdout, first, text, (int)strlen(first));
	}
	struct pb_truth_count cs[16];
	unsigned n = pb_truth_counts(t, cs);
	buf[0] = '\0';
	for (unsigned i = 0; i < n; i++)
		pb_append(buf, sizeof buf, "%s%s=%" PRIu64, i ? " " : "", cs[i].name, cs[i].value);
	pb_text_wrapped(stdout, "  per iteration: ", buf, 4);
	printf("  once per run: %" PRIu64 " instructions\n", t->once_instructions);
	for (unsigned i = 0; i < t->nlabels; i++) {
		const struct pb_label_truth *l = &t->labels[i];
		pb_event_kinds_text(l->kinds, kinds, sizeof kinds);
		if (l->once)
			printf("  label %-34s %-34s once per run\n", l->name, kinds);
		else
			printf("  label %-34s %-34s x%" PRIu64 " per iteration\n", l->name, kinds,
			       l->per_iteration);
	}
	if (t->has_watch)
		pb_format(buf, sizeof buf, "%s; over %d iterations %" PRIu64 " writes, %" PRIu64
			  " accesses",
			  t->watch_what, SHOWN_ITERATIONS, t->watch_writes, t->watch_accesses);
	else
		pb_format(buf, sizeof buf, "%s", t->watch_what);
	pb_text_wrapped(stdout, "  watched data: ", buf, 4);
	if (w->assumptions) {
		w->assumptions(c->params, buf, sizeof buf);
		if (buf[0])
			pb_text_wrapped(stdout, "  ASSUMPTION: ", buf, 4);
	}
	printf("\n");
}

struct workloads_args {
	struct pb_workload_choice choices[64];
	size_t n;
	bool json;
};

static int add_workload(void *args, const char *value, struct pb_error *err)
{
	struct workloads_args *a = args;
	if (a->n == PB_ARRAY_SIZE(a->choices))
		return pb_fail(err, PB_EXIT_USAGE, 0, "too many workloads named");
	return pb_workload_parse(value, &a->choices[a->n++], err);
}

static const struct pb_opt workloads_options[] = {
	{.name = "json", .kind = PB_OPT_FLAG, .at = PB_AT(struct workloads_args, json, bool),
	 .help = "the listing as JSON"},
	{0},
};

const struct pb_cmd_spec pb_cmd_workloads_spec = {
	.name = "workloads",
	.summary = "list the workloads with their parameters and declared truth",
	.operands = "[WORKLOAD[:key=value,...]...]",
	.description =
		"Lists the workloads (all, or those named, with the given parameters): their\n"
		"parameters, declared truth per iteration, labelled instructions, the data a\n"
		"breakpoint watches, and the assumptions that cannot be measured here.\n"
		"`pesbench verify` checks the declarations against exact oracles.\n",
	.options = workloads_options,
	.args_size = sizeof(struct workloads_args),
	.positional = add_workload,
};

int pb_cmd_workloads(int argc, char **argv)
{
	static struct workloads_args a;
	memset(&a, 0, sizeof a);
	int rest, rc0 = pb_options_run(&pb_cmd_workloads_spec, argc, argv, &a, &rest);
	if (rc0 >= 0)
		return rc0;
	bool json = a.json;
	struct pb_workload_choice *choices = a.choices;
	size_t n = a.n;
	struct pb_error err = {0};
	if (!n)
		for (const struct pb_workload *const *w = pb_workload_list(); *w; w++)
			pb_workload_parse((*w)->name, &choices[n++], &err);
	if (json)
		return pb_cli_print_document("workloads",
					     pb_workloads_json(choices, n, SHOWN_ITERATIONS, &err),
					     &err);
	for (size_t i = 0; i < n; i++) {
		struct pb_truth t;
		if (pb_workload_truth(&choices[i], SHOWN_ITERATIONS, &t, &err))
			return pb_cli_report("workloads", &err);
		print_text(&choices[i], &t);
	}
	return PB_EXIT_OK;
}
