/* Fuzzes the results.json loader (pb_results_load_buffer, the checks `compare` and `report`
 * run on a file a user hands them). Whatever the bytes, the loader either accepts a JSON
 * object of a schema it reads (/2, or /1) with a points array, or refuses with a message and
 * exit code 6 and an empty document; it never crashes, leaks or accepts something of another
 * schema. */
#include "io/results.h"

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
