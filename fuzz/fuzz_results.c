/* Fuzzes the results.json loader (pb_results_load_buffer, the checks `compare` and `report`
 * run on a file a user hands them). Whatever the bytes, the loader either accepts a JSON
 * object of this schema with a points array, or refuses with a message and exit code 6 and
 * no tree; it never crashes, leaks or accepts something of another schema. */
#include "io/results.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	json_t *root = (json_t *)1;
	struct pb_error err;
	memset(&err, 0, sizeof err);
	if (pb_results_load_buffer((const char *)data, size, "fuzz input", &root, &err)) {
		if (root || err.code != PB_EXIT_BAD_FILE || !err.msg[0])
			abort();
		return 0;
	}
	const char *schema = json_string_value(json_object_get(root, "schema"));
	if (!schema || strcmp(schema, PB_RESULTS_SCHEMA) ||
	    !json_is_array(json_object_get(root, "points")))
		abort();
	/* what compare and report do next: walk the points and render them again */
	size_t i;
	json_t *p;
	json_array_foreach(json_object_get(root, "points"), i, p)
		(void)json_string_value(json_object_get(p, "experiment"));
	char *text = json_dumps(root, JSON_COMPACT);
	free(text);
	json_decref(root);
	return 0;
}
