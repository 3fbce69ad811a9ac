#include "output_snapshot.h"

#include <stdio.h>
#include <stdlib.h>

void pb_test_output_snapshot(const char *what, const json_t *value)
{
	const char *path = getenv("PB_OUTPUT_SNAPSHOT");
	if (!path || !*path || !value)
		return;
	FILE *f = fopen(path, "a");
	if (!f) {
		perror(path);
		abort();
	}
	json_t *line = json_pack("{s:s, s:O}", "what", what, "value", value);
	/* sorted keys: the snapshot compares the values, not the order a build writes them in */
	if (!line || json_dumpf(line, f, JSON_COMPACT | JSON_SORT_KEYS) || fputc('\n', f) == EOF ||
	    fclose(f)) {
		perror(path);
		abort();
	}
	json_decref(line);
}
