/* Fuzzes what `pesbench perfdata` does with a file's bytes past the reader: the summary walk
 * (analysis/perfdata_summary.c) with every built-in facility's perf.data decoder, --dump and
 * --histogram on, then the text and the JSON report (io/perfdata_report.c) of it, the samples
 * per data source included. Output goes to /dev/null; a crash, a leak or a read outside the
 * input (an exact-size copy) is the finding. */
#include "analysis/perfdata_summary.h"
#include "io/perfdata_report.h"

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *null;
	if (!null && !(null = fopen("/dev/null", "w")))
		return 0;
	uint8_t *copy = malloc(size ? size : 1);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	struct pb_perfdata *pd;
	struct pb_error err;
	if (pb_perfdata_open_memory(copy, size, &pd, &err) == 0) {
		struct pb_pdsum sum = {.histogram = true, .dump = true, .dump_out = null};
		if (!pb_pdsum_open(&sum, pd, pb_facility_list(), &err) &&
		    !pb_pdsum_walk(&sum, &err)) {
			pb_perfdata_report_text(&sum, "fuzz", 4, null);
			json_decref(pb_perfdata_report_json(&sum, 4));
		}
		pb_pdsum_free(&sum);
		pb_perfdata_close(pd);
	}
	free(copy);
	return 0;
}
