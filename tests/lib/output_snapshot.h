/* The fake-kernel results for scripts/output-snapshot.sh (docs/outputs.md): when the
 * environment variable PB_OUTPUT_SNAPSHOT names a file, every run record and result point a
 * test reads back through results_json.c is appended to it as one JSON line, so that two builds'
 * results of the same constructed kernel can be compared byte for byte. */
#ifndef PB_TEST_OUTPUT_SNAPSHOT_H
#define PB_TEST_OUTPUT_SNAPSHOT_H

#include <jansson.h>

/* Appends {"what": what, "value": value} to $PB_OUTPUT_SNAPSHOT; nothing when it is unset. */
void pb_test_output_snapshot(const char *what, const json_t *value);

#endif
