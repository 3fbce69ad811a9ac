/* What `pesbench perfdata` prints of a perf.data summary (analysis/perfdata_summary.h): the
 * text for a terminal and the pesbench-perfdata/1 JSON document. */
#ifndef PB_PERFDATA_REPORT_H
#define PB_PERFDATA_REPORT_H

#include "analysis/perfdata_summary.h"

#include <stdint.h>
#include <stdio.h>

struct json_t;

/* The recording's machine, the records skipped, the table of events, the decoders' tallies
 * after --dump, the top IPs per event with --histogram, the samples per data source. path
 * names the file in the first line. */
void pb_perfdata_report_text(struct pb_pdsum *s, const char *path, uint64_t top, FILE *out);
/* The same as JSON (the decoders' tallies left out: --dump does not mix with it); NULL when
 * out of memory. */
struct json_t *pb_perfdata_report_json(struct pb_pdsum *s, uint64_t top);

#endif
