/* Fuzzes the capture bundle's index (pb_bundle_parse: the bundle.json `pesbench replay` reads
 * from a user's bundle). Whatever the bytes, the parser either accepts a document whose every
 * point has 1..8 events, 1..8 threads, code spanning its truth's range and files under
 * points/, or refuses with exit code 6, a message and an empty bundle; it never crashes or
 * leaks, and what it accepts is written back and read again to the same. */
#include "bundle/bundle.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pb_bundle b;
	struct pb_error err;
	memset(&err, 0, sizeof err);
	if (pb_bundle_parse((const char *)data, size, "fuzz input", &b, &err)) {
		if (b.npoints || b.points || (err.code != PB_EXIT_BAD_FILE && err.code != PB_EXIT_FAILURE) ||
		    !err.msg[0])
			abort();
		return 0;
	}
	for (size_t i = 0; i < b.npoints; i++) {
		const struct pb_bundle_point *p = &b.points[i];
		if (!p->nevents || p->nevents > PB_MAX_EVENTS || !p->threads ||
		    p->threads > PB_BUNDLE_MAX_THREADS ||
		    p->code_len != p->truth.code_end - p->truth.code_begin)
			abort();
		for (unsigned e = 0; e < p->nevents; e++)
			for (unsigned t = 0; t < p->threads; t++)
				if (strncmp(p->events[e].thread[t].file, "points/", 7) ||
				    strstr(p->events[e].thread[t].file, ".."))
					abort();
	}
	json_t *doc = pb_bundle_json(&b);
	char *text = json_dumps(doc, JSON_COMPACT);
	json_decref(doc);
	struct pb_bundle again;
	if (!text || pb_bundle_parse(text, strlen(text), "written back", &again, &err) ||
	    again.npoints != b.npoints)
		abort();
	pb_bundle_free(&again);
	free(text);
	pb_bundle_free(&b);
	return 0;
}
