/* `pesbench facilities --json`: every facility's model row. */
#include "io/facility_model.h"

#include <jansson.h>

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
