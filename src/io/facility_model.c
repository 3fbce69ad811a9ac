/* `pesbench facilities`: every facility's model row, from its descriptor and its suite spec on
 * the natural workload, and the rows as JSON. */
#include "io/facility_model.h"

#include "util/text.h"
#include "workloads/workload.h"

#include <jansson.h>
#include <string.h>

#define SHOWN_ITERATIONS 1000

static void role_text(const struct pb_spec *spec, enum pb_workload_role role, const char *name,
		      char *buf, size_t len)
{
	const char *why = NULL;
	const char *w = pb_spec_workload(spec, role, &why);
	pb_append(buf, len, "%s%s: %s", buf[0] ? "; " : "", name, w ? w : "n/a");
}

int pb_facility_model_fill(const struct pb_facility *f, const struct pb_spec *spec,
			   struct pb_facility_model *r, struct pb_error *err)
{
	memset(r, 0, sizeof *r);
	r->f = f;
	const char *natural = pb_spec_workload(spec, PB_ROLE_NATURAL, NULL);
	struct pb_workload_choice choice;
	struct pb_truth truth;
	if (pb_workload_parse(natural, &choice, err) ||
	    pb_workload_truth(&choice, SHOWN_ITERATIONS, &truth, err))
		return -1;
	pb_format(r->natural, sizeof r->natural, "%s", natural);
	uint64_t events = 0;
	int label = pb_spec_sits_on_instruction(spec) ? pb_truth_default_label(&truth) : -1;
	pb_format(r->basis, sizeof r->basis, "%s",
		  pb_spec_declare(spec, &truth, label, SHOWN_ITERATIONS, &events));
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
	bool excludes = pb_spec_can_exclude(spec);
	pb_format(r->exclusion, sizeof r->exclusion, "%s%s",
		  !excludes ? "not this spec: both levels sampled"
		  : f->samples_every_level ? "yes; samples both where permitted" : "yes",
		  f->filters_in_software ? "; where an option lets it, in software (filtered)"
					 : "");
	pb_format(r->cost, sizeof r->cost, "%s", f->traps_every_event ? "per event and per sample"
								   : "per sample");
	role_text(spec, PB_ROLE_COST, "cost", r->roles, sizeof r->roles);
	role_text(spec, PB_ROLE_PREDICT, "prediction", r->roles, sizeof r->roles);
	role_text(spec, PB_ROLE_LEVELS, "levels", r->roles, sizeof r->roles);
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

json_t *pb_facility_models_json(const struct pb_facility_model *rows, unsigned n)
{
	json_t *all = json_array();
	for (unsigned i = 0; i < n; i++) {
		const struct pb_facility_model *r = &rows[i];
		json_t *words = json_array();
		for (size_t k = 0; r->f->options && k < r->f->options->n; k++) {
			char one[96];
			pb_spec_option_usage(&r->f->options->options[k], one, sizeof one);
			json_array_append_new(words, json_pack("{s:s, s:s}", "word", one, "help",
							       r->f->options->options[k].help));
		}
		json_t *row;
		json_array_append_new(
			all, row = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:b, s:b, s:I, "
				       "s:I, s:s}",
				       "facility", r->f->name, "suite_spec", r->f->suite_spec,
				       "natural_workload", r->natural, "basis", r->basis,
				       "events_per_iteration", r->per_iteration, "ip", r->ip,
				       "periods", r->periods, "leaves_out_a_level", r->exclusion,
				       "cost", r->cost, "time_based", r->f->time_based, "exact",
				       r->f->exact, "min_period", (json_int_t)r->f->min_period,
				       "default_period", (json_int_t)r->f->default_period,
				       "workloads", r->roles));
		json_object_set_new(row, "spec_words", words);
	}
	return all;
}
