/* Reading perf.data files, as `perf record` writes them (file and pipe mode, native byte order;
 * tools/perf/Documentation/perf.data-file-format.txt). The reader streams the data section
 * through a bounded buffer: memory does not grow with the file.
 *
 *	struct pesbench_perfdata *pd = pesbench_perfdata__open("perf.data", &err);
 *	if (!pd || pesbench_perfdata__for_each(pd, on_record, ctx, &err))
 *		fprintf(stderr, "%s\n", err.msg);
 *	pesbench_perfdata__close(pd);
 */
#ifndef PESBENCH_PERFDATA_H
#define PESBENCH_PERFDATA_H

#include <pesbench/core.h>
#include <pesbench/record.h>

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct pesbench_perfdata;
struct pesbench_perfdata_event;

/* Opens path: checks the header, reads the events (attrs), their ids and the header features.
 * NULL with err set (code PESBENCH_E_BAD_FILE) when the file is not a perf.data file, is of the
 * other byte order, holds compressed records or a section outside the file; with
 * PESBENCH_E_FAILURE and err->sys_errno when it cannot be read. */
struct pesbench_perfdata *pesbench_perfdata__open(const char *path, struct pesbench_error *err);
/* The same over len bytes in memory; buf must outlive the reader. */
struct pesbench_perfdata *pesbench_perfdata__open_memory(const void *buf, size_t len,
							 struct pesbench_error *err);
/* Frees the reader and every event and string it handed out. */
void pesbench_perfdata__close(struct pesbench_perfdata *pd);

/* The events of the file. In pipe mode the walk may add events (an attr record after the first
 * sample): count them again after pesbench_perfdata__for_each. Event pointers stay valid until
 * the next walk or close. */
size_t pesbench_perfdata__nr_events(const struct pesbench_perfdata *pd);
struct pesbench_perfdata_event *pesbench_perfdata__event(struct pesbench_perfdata *pd, size_t index);

/* The event's name (perf's, from the file's event descriptions, else "type/config"). */
const char *pesbench_perfdata_event__name(const struct pesbench_perfdata_event *ev);
const struct perf_event_attr *pesbench_perfdata_event__attr(const struct pesbench_perfdata_event *ev);
/* The record format of the event's records, owned by the reader. */
const struct pesbench_record_format *
pesbench_perfdata_event__format(const struct pesbench_perfdata_event *ev);
/* What the last walk counted for the event: PERF_RECORD_SAMPLE records, and samples lost
 * (PERF_RECORD_LOST naming the event, plus PERF_RECORD_LOST_SAMPLES). 0 before any walk. */
uint64_t pesbench_perfdata_event__nr_samples(const struct pesbench_perfdata_event *ev);
uint64_t pesbench_perfdata_event__nr_lost(const struct pesbench_perfdata_event *ev);

/* Header strings: "" when the file does not carry them. */
const char *pesbench_perfdata__hostname(const struct pesbench_perfdata *pd);
const char *pesbench_perfdata__arch(const struct pesbench_perfdata *pd);
const char *pesbench_perfdata__cpuid(const struct pesbench_perfdata *pd);
const char *pesbench_perfdata__perf_version(const struct pesbench_perfdata *pd);
/* The PMU name a perf_event_attr.type maps to in the file, NULL when not mapped. */
const char *pesbench_perfdata__pmu_name(const struct pesbench_perfdata *pd, uint32_t type);

/* Called for every record of the data section, in file order. event is the index of the event
 * the record belongs to, -1 when it names none (perf's own user records, an unknown id). rec
 * and what it points to are valid only during the call. A non-zero return stops the walk,
 * which returns it; set err to explain it. */
typedef int (*pesbench_perfdata_fn)(void *ctx, int event, const struct pesbench_record *rec,
				    struct pesbench_error *err);

/* Walks the data section (fn may be NULL: only count). Returns 0, fn's non-zero return, or -1
 * with err set (PESBENCH_E_BAD_FILE naming the offset) for a record that does not parse. May
 * be called again and sees the same again: the counts start over, and the events, names and
 * features the last walk found in the data section are dropped until it finds them again. */
int pesbench_perfdata__for_each(struct pesbench_perfdata *pd, pesbench_perfdata_fn fn, void *ctx,
				struct pesbench_error *err);
/* What the last walk counted over the whole file: every record, and PERF_RECORD_SAMPLE ones. */
uint64_t pesbench_perfdata__nr_records(const struct pesbench_perfdata *pd);
uint64_t pesbench_perfdata__nr_samples(const struct pesbench_perfdata *pd);

#ifdef __cplusplus
}
#endif

#endif
