/* Fuzzes the results.jsonl reader and the comparison built on what it accepts (the records a
 * fleet concatenates from many machines and hands to `compare`). Whatever the bytes, the reader
 * either accepts records of pesbench-figure/1 or refuses with exit code 6 and a message naming
 * the line; a comparison of what it accepted prints as text, JSON and HTML without crashing or
 * leaking. */
#include "present/compare.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pb_compare *c = pb_compare_new();
	struct pb_error err = {0};
	if (pb_compare_add_jsonl(c, (const char *)data, size, "fuzz input", &err)) {
		if (err.code != PB_EXIT_BAD_FILE || !err.msg[0])
			abort();
		pb_compare_free(c);
		return 0;
	}
	if (!pb_compare_build(c, &err)) {
		FILE *sink = fopen("/dev/null", "w");
		if (sink) {
			pb_compare_print(sink, c, 100);
			pb_compare_print_records(sink, c);
			fclose(sink);
		}
		json_t *doc = pb_compare_json(c);
		if (!json_is_array(json_object_get(doc, "tables")))
			abort();
		json_decref(doc);
	} else if (err.code != PB_EXIT_USAGE && err.code != PB_EXIT_FAILURE) {
		abort();
	}
	pb_compare_free(c);
	return 0;
}
