/* `pesbench workloads`: every workload with its parameters, declared truth per iteration,
 * labelled instructions and the assumptions that cannot be measured here. */
#include "cli/commands.h"
#include "cli/options.h"
#include "util/error.h"
#include "util/kit.h"
#include "workloads/workload.h"

#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

/* Truth is shown for one iteration; the watched-data totals for this many. */
#define SHOWN_ITERATIONS 1000

struct counted {
	const char *name;
	uint64_t value;
};

static unsigned truth_counts(const struct pb_truth *t, struct counted *out)
{
	const struct counted all[] = {
		{"instructions", t->instructions}, {"loads", t->loads},
		{"stores", t->stores},             {"branches", t->branches},
		{"taken_branches", t->taken_branches}, {"calls", t->calls},
		{"returns", t->returns},           {"locked", t->locked},
		{"syscalls", t->syscalls},         {"l1_misses", t->l1_misses},
		{"page_faults", t->page_faults},
	};
	memcpy(out, all, sizeof all);
	return PB_ARRAY_SIZE(all);
}

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

static void print_text(const struct pb_workload_choice *c, const struct pb_truth *t)
{
	const struct pb_workload *w = c->workload;
	char buf[2048], kinds[96];
	printf("%s  %s\n", w->name, w->summary);
	for (unsigned i = 0; i < w->nparams; i++) {
		const struct pb_param_def *d = &w->params[i];
		char value[32];
		if (d->choices)
			snprintf(value, sizeof value, "%s", d->choices[c->params[i]]);
		else
			snprintf(value, sizeof value, "%" PRId64, c->params[i]);
		param_range(d, buf, sizeof buf);
		printf("  param %-8s = %-10s (%s) %s\n", d->name, value, buf, d->summary);
	}
	struct counted cs[16];
	unsigned n = truth_counts(t, cs);
	printf("  per iteration:");
	for (unsigned i = 0; i < n; i++)
		printf(" %s=%" PRIu64, cs[i].name, cs[i].value);
	printf("\n  once per run: %" PRIu64 " instructions\n", t->once_instructions);
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
		printf("  watched data: %s; over %d iterations %" PRIu64 " writes, %" PRIu64
		       " accesses\n",
		       t->watch_what, SHOWN_ITERATIONS, t->watch_writes, t->watch_accesses);
	else
		printf("  watched data: %s\n", t->watch_what);
	if (w->assumptions) {
		w->assumptions(c->params, buf, sizeof buf);
		if (buf[0])
			printf("  ASSUMPTION: %s\n", buf);
	}
	printf("\n");
}

static json_t *to_json(const struct pb_workload_choice *c, const struct pb_truth *t)
{
	const struct pb_workload *w = c->workload;
	char buf[2048];
	json_t *o = json_object();
	json_object_set_new(o, "name", json_string(w->name));
	json_object_set_new(o, "summary", json_string(w->summary));
	json_t *params = json_array();
	for (unsigned i = 0; i < w->nparams; i++) {
		const struct pb_param_def *d = &w->params[i];
		json_t *p = json_object();
		json_object_set_new(p, "name", json_string(d->name));
		json_object_set_new(p, "summary", json_string(d->summary));
		if (d->choices) {
			json_t *ch = json_array();
			for (unsigned k = 0; d->choices[k]; k++)
				json_array_append_new(ch, json_string(d->choices[k]));
			json_object_set_new(p, "choices", ch);
			json_object_set_new(p, "default", json_string(d->choices[d->def]));
			json_object_set_new(p, "value", json_string(d->choices[c->params[i]]));
		} else {
			json_object_set_new(p, "min", json_integer(d->min));
			json_object_set_new(p, "max", json_integer(d->max));
			json_object_set_new(p, "default", json_integer(d->def));
			json_object_set_new(p, "value", json_integer(c->params[i]));
		}
		json_array_append_new(params, p);
	}
	json_object_set_new(o, "params", params);
	json_t *per = json_object();
	struct counted cs[16];
	unsigned n = truth_counts(t, cs);
	for (unsigned i = 0; i < n; i++)
		json_object_set_new(per, cs[i].name, json_integer((json_int_t)cs[i].value));
	json_object_set_new(o, "per_iteration", per);
	json_object_set_new(o, "once_instructions", json_integer((json_int_t)t->once_instructions));
	json_t *labels = json_array();
	for (unsigned i = 0; i < t->nlabels; i++) {
		const struct pb_label_truth *l = &t->labels[i];
		json_t *lj = json_object();
		json_object_set_new(lj, "symbol", json_string(l->name));
		json_t *kinds = json_array();
		for (unsigned k = 0; k < PB_EV_KINDS; k++)
			if (l->kinds & (1u << k))
				json_array_append_new(kinds, json_string(pb_event_kind_name(k)));
		json_object_set_new(lj, "events", kinds);
		json_object_set_new(lj, "per_iteration", json_integer((json_int_t)l->per_iteration));
		json_object_set_new(lj, "once", json_integer((json_int_t)l->once));
		json_array_append_new(labels, lj);
	}
	json_object_set_new(o, "labels", labels);
	json_t *watch = json_object();
	json_object_set_new(watch, "what", json_string(t->watch_what ? t->watch_what : ""));
	json_object_set_new(watch, "present", json_boolean(t->has_watch));
	json_object_set_new(watch, "iterations", json_integer(SHOWN_ITERATIONS));
	json_object_set_new(watch, "writes", json_integer((json_int_t)t->watch_writes));
	json_object_set_new(watch, "accesses", json_integer((json_int_t)t->watch_accesses));
	json_object_set_new(o, "watch", watch);
	buf[0] = '\0';
	if (w->assumptions)
		w->assumptions(c->params, buf, sizeof buf);
	json_object_set_new(o, "assumptions", buf[0] ? json_string(buf) : json_null());
	return o;
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
	json_t *all = json ? json_array() : NULL;
	for (size_t i = 0; i < n; i++) {
		struct pb_truth t;
		if (pb_workload_truth(&choices[i], SHOWN_ITERATIONS, &t, &err)) {
			json_decref(all);
			return pb_cli_report("workloads", &err);
		}
		if (json)
			json_array_append_new(all, to_json(&choices[i], &t));
		else
			print_text(&choices[i], &t);
	}
	if (json) {
		return pb_cli_print_json("workloads", all, 2);
	}
	return PB_EXIT_OK;
}
