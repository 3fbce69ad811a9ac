/* Fuzzes the results.json loader (pb_results_load_buffer, the checks `compare` and `report`
 * run on a file a user hands them). Whatever the bytes, the loader either accepts a JSON
 * object of a schema it reads (/2, or /1) with a points array, or refuses with a message and
 * exit code 6 and an empty document; it never crashes, leaks or accepts something of another
 * schema. A document it accepts is then read as `plan --costs` reads it (pb_cost_from_results):
 * a cost taken or refused with a message, and a rate model taken only whole, its line a number
 * at any period. */
#include "experiments/predict.h"
#include "io/results.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pb_results r;
	struct pb_error err;
	memset(&err, 0, sizeof err);
	if (pb_results_load_buffer((const char *)data, size, "fuzz input", &r, &err)) {
		if (r.npoints || r.schema[0] || err.code != PB_EXIT_BAD_FILE || !err.msg[0])
			abort();
		pb_results_free(&r);
		return 0;
	}
	if (strcmp(r.schema, PB_RESULTS_SCHEMA) && strcmp(r.schema, PB_RESULTS_SCHEMA_V1))
		abort();
	/* what plan --costs does with it */
	double ns = NAN, ci = NAN;
	struct pb_rate_model rate;
	struct pb_error cost_err;
	memset(&cost_err, 0, sizeof cost_err);
	if (pb_cost_from_results(&r, "fuzz input", "timer:cpu-clock", &ns, &ci, &rate, &cost_err)) {
		if (!cost_err.msg[0] || !cost_err.code)
			abort();
	} else if (rate.fitted) {
		static const uint64_t periods[] = {1, 26000, 100000, UINT64_MAX};
		if (!rate.ref_period || rate.top_period < rate.ref_period)
			abort();
		for (size_t k = 0; k < sizeof periods / sizeof periods[0]; k++)
			if (isnan(pb_rate_model_at(&rate, periods[k], NULL)))
				abort();
	}
	/* what compare and report do next: walk the points and render them again */
	for (size_t i = 0; i < r.npoints; i++)
		(void)pb_rset_get_int(&r.points[i]->params, "period");
	json_t *root = pb_results_json(&r);
	if (!json_is_array(json_object_get(root, "points")) ||
	    json_array_size(json_object_get(root, "points")) != r.npoints)
		abort();
	char *text = json_dumps(root, JSON_COMPACT);
	free(text);
	json_decref(root);
	pb_results_free(&r);
	return 0;
}
