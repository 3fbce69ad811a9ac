/* `pesbench workloads --json`: each workload's parameters and declared truth. */
#include "io/workload_json.h"

#include "util/kit.h"

#include <jansson.h>
#include <string.h>

unsigned pb_truth_counts(const struct pb_truth *t, struct pb_truth_count *out)
{
	const struct pb_truth_count all[] = {
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

static json_t *workload_json(const struct pb_workload_choice *c, const struct pb_truth *t,
			     unsigned iterations)
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
	struct pb_truth_count cs[16];
	unsigned n = pb_truth_counts(t, cs);
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
	json_object_set_new(watch, "iterations", json_integer(iterations));
	json_object_set_new(watch, "writes", json_integer((json_int_t)t->watch_writes));
	json_object_set_new(watch, "accesses", json_integer((json_int_t)t->watch_accesses));
	json_object_set_new(o, "watch", watch);
	buf[0] = '\0';
	if (w->assumptions)
		w->assumptions(c->params, buf, sizeof buf);
	json_object_set_new(o, "assumptions", buf[0] ? json_string(buf) : json_null());
	return o;
}

json_t *pb_workloads_json(const struct pb_workload_choice *choices, size_t n,
			  unsigned iterations, struct pb_error *err)
{
	json_t *all = json_array();
	for (size_t i = 0; all && i < n; i++) {
		struct pb_truth t;
		if (pb_workload_truth(&choices[i], iterations, &t, err)) {
			json_decref(all);
			return NULL;
		}
		json_array_append_new(all, workload_json(&choices[i], &t, iterations));
	}
	return all;
}
