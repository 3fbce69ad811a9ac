/* A perf.data as an export profile, fed record by record from a walk of the file (so a command
 * that walks the file for its own figures converts it in the same pass). */
#ifndef PB_EXPORT_FROM_PERFDATA_H
#define PB_EXPORT_FROM_PERFDATA_H

#include "export/export.h"
#include "perfdata/perfdata.h"

struct pb_xperf;

/* One profile named `name`, two value types per event of the file: "samples" (count, the
 * primary) and the event's name (the period summed, "events"). */
int pb_xperf_start(struct pb_perfdata *pd, const char *name, struct pb_xperf **out,
		   struct pb_error *err);
/* Frames without source files and lines (see pb_xset.no_source). */
void pb_xperf_no_source(struct pb_xperf *x);
/* Every record of the walk: mappings name frames, samples add their stack. Call chains
 * (PERF_SAMPLE_CALLCHAIN) are taken leaf first as the kernel stores them, perf's context
 * markers (PERF_CONTEXT_KERNEL, _USER, ...) skipped. */
int pb_xperf_record(struct pb_xperf *x, int event, const struct pb_record *rec,
		    struct pb_error *err);
/* A sample handed over as IP, pid and time only (pb_perfdata_ip_sink): no chain, the attr's
 * period; named by the mappings current at time (PB_PERFDATA_NO_TIME: the latest ones). */
int pb_xperf_sample_ip(struct pb_xperf *x, int event, uint64_t ip, uint32_t pid, uint64_t time,
		       struct pb_error *err);
/* After the walk: the per-event samples, losses and throttles stated as comments. The set
 * belongs to x. */
struct pb_xset *pb_xperf_finish(struct pb_xperf *x, const struct pb_perfdata_stats *st,
				struct pb_error *err);
void pb_xperf_free(struct pb_xperf *x);

#endif
