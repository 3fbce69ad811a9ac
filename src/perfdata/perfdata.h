/* perf.data files (the format of `perf record`, tools/perf/Documentation/perf.data-file-format.txt):
 * a streaming reader, so a user's own recording goes through the same analysis as pesbench's
 * sessions, and a writer, so pesbench's samples open in `perf report` and `perf script`.
 *
 * Layout: a 104-byte header (magic "PERFILE2", header size, size of one attr entry, the attrs,
 * data and event_types sections, a 256-bit feature bitmap); the attr entries (a perf_event_attr
 * followed by the section of its u64 ids); the data section (perf_event_header records, the
 * kernel's types below 64 and perf's own "user" types from 64); then, right after the data
 * section, one {offset, size} section per feature bit set, in bit order, and their payloads.
 * Pipe-mode files (`perf record -o -`: a 16-byte header, then attrs and features as
 * HEADER_ATTR / HEADER_FEATURE records among the data) are read too. Only the native byte
 * order is read. */
#ifndef PB_PERFDATA_H
#define PB_PERFDATA_H

#include "ring/record.h"
#include "util/error.h"

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Feature bits of the header bitmap (tools/perf/util/header.h). */
enum pb_perfdata_feature {
	PB_FEAT_TRACING_DATA = 1,
	PB_FEAT_BUILD_ID = 2,
	PB_FEAT_HOSTNAME = 3,
	PB_FEAT_OSRELEASE = 4,
	PB_FEAT_VERSION = 5,
	PB_FEAT_ARCH = 6,
	PB_FEAT_NRCPUS = 7,
	PB_FEAT_CPUDESC = 8,
	PB_FEAT_CPUID = 9,
	PB_FEAT_TOTAL_MEM = 10,
	PB_FEAT_CMDLINE = 11,
	PB_FEAT_EVENT_DESC = 12,
	PB_FEAT_PMU_MAPPINGS = 16,
	PB_FEAT_COMPRESSED = 27,
	PB_FEAT_PMU_CAPS = 31,
	PB_FEAT_BITS = 256
};

/* perf's own record types in the data section (tools/lib/perf/include/perf/event.h). */
enum pb_perfdata_user_record {
	PB_PERF_RECORD_USER_TYPE_START = 64,
	PB_PERF_RECORD_HEADER_ATTR = 64,
	PB_PERF_RECORD_HEADER_TRACING_DATA = 66, /* followed by u32-sized data outside the record */
	PB_PERF_RECORD_FINISHED_ROUND = 68,
	PB_PERF_RECORD_ID_INDEX = 69,
	PB_PERF_RECORD_AUXTRACE = 71,            /* followed by u64-sized data outside the record */
	PB_PERF_RECORD_EVENT_UPDATE = 78,
	PB_PERF_RECORD_HEADER_FEATURE = 80,
	PB_PERF_RECORD_COMPRESSED = 81,
	PB_PERF_RECORD_USER_TYPE_MAX = 96        /* counting array size; later types count as 95 */
};

#define PB_PERFDATA_NAME_MAX 128
#define PB_PERFDATA_MAX_EVENTS 4096
#define PB_PERFDATA_MAX_PMUS 256

/* One attr of the file with what the reader counted for it. */
struct pb_perfdata_event {
	struct perf_event_attr attr;     /* zero-extended when the file's attr is shorter */
	struct pb_record_format fmt;
	struct pb_sample_layout layout;  /* of fmt.sample_type: the walk's fast path for samples */
	char name[PB_PERFDATA_NAME_MAX]; /* HEADER_EVENT_DESC name, else "type/config" */
	uint64_t *ids;
	size_t nids;
	/* Counted by pb_perfdata_for_each. */
	uint64_t samples;
	uint64_t lost;                   /* PERF_RECORD_LOST records naming one of its ids */
	uint64_t lost_samples;           /* PERF_RECORD_LOST_SAMPLES */
	uint64_t throttles, unthrottles;
};

struct pb_perfdata_pmu {
	uint32_t type;
	char name[64];
};

struct pb_perfdata_stats {
	uint64_t records;                /* every record of the data section */
	uint64_t samples;                /* PERF_RECORD_SAMPLE, attributed or not */
	uint64_t unattributed;           /* samples whose id names no attr of the file */
	uint64_t by_type[PB_PERF_RECORD_USER_TYPE_MAX]; /* kernel types < 64 and user types */
	uint64_t user_records;           /* types >= 64: skipped */
	uint64_t unknown;                /* kernel types record.h does not decode: skipped */
};

struct pb_perfdata;

/* Opens a perf.data file: checks the header, reads the attrs, their ids and the features that
 * matter (PMU mappings, CPUID, nr cpus, event desc, PMU caps, arch, hostname, os release); in
 * pipe mode from the records before the first kernel record. Fails with PB_EXIT_BAD_FILE naming
 * what is wrong: not a perf.data file, the other byte order, compressed records, a section
 * outside the file. Event pointers from pb_perfdata_event stay valid until the walk, which may
 * add events (a pipe-mode HEADER_ATTR record after the first kernel record); the events,
 * names, features and PMU lists a walk adds stay until the next walk starts. */
int pb_perfdata_open(const char *path, struct pb_perfdata **out, struct pb_error *err);
/* The same over bytes in memory (buf must outlive the reader). */
int pb_perfdata_open_memory(const void *buf, size_t len, struct pb_perfdata **out,
			    struct pb_error *err);
void pb_perfdata_close(struct pb_perfdata *pd);

size_t pb_perfdata_nevents(const struct pb_perfdata *pd);
struct pb_perfdata_event *pb_perfdata_event(struct pb_perfdata *pd, size_t index);
bool pb_perfdata_has_feature(const struct pb_perfdata *pd, unsigned feature);
bool pb_perfdata_is_pipe(const struct pb_perfdata *pd);
uint64_t pb_perfdata_data_size(const struct pb_perfdata *pd);
/* Strings of the features, "" when the file does not carry them. */
const char *pb_perfdata_cpuid(const struct pb_perfdata *pd);
const char *pb_perfdata_arch(const struct pb_perfdata *pd);
const char *pb_perfdata_hostname(const struct pb_perfdata *pd);
const char *pb_perfdata_osrelease(const struct pb_perfdata *pd);
const char *pb_perfdata_perf_version(const struct pb_perfdata *pd);
/* The GNU build id (hex) HEADER_BUILD_ID gives the host kernel; "" when it gives none. */
const char *pb_perfdata_kernel_build_id(const struct pb_perfdata *pd);
/* HEADER_NRCPUS; false when absent. */
bool pb_perfdata_nr_cpus(const struct pb_perfdata *pd, uint32_t *available, uint32_t *online);
size_t pb_perfdata_npmus(const struct pb_perfdata *pd);
const struct pb_perfdata_pmu *pb_perfdata_pmu(const struct pb_perfdata *pd, size_t index);
/* The HEADER_PMU_MAPPINGS name of a PMU type number, NULL when the file does not map it. */
const char *pb_perfdata_pmu_name(const struct pb_perfdata *pd, uint32_t type);
/* The HEADER_PMU_CAPS value of pmu's capability name, NULL when absent. */
const char *pb_perfdata_pmu_cap(const struct pb_perfdata *pd, const char *pmu, const char *name);

/* Called for every record of the data section in file order. event is the index of the attr
 * the record belongs to (by PERF_SAMPLE_IDENTIFIER or the id position, as perf decides; the
 * only attr when there is one), -1 when it names none (user records, or an id that is not in
 * the file). bytes/len are the record as stored. rec is decoded with that attr's format; for
 * types record.h does not decode only its header fields are set. A non-zero return stops the
 * walk and is returned by pb_perfdata_for_each (set err to explain it). */
typedef int (*pb_perfdata_record_fn)(void *ctx, int event, const struct pb_record *rec,
				     const uint8_t *bytes, size_t len, struct pb_error *err);

/* Streams the data section through fn with a bounded buffer (memory does not grow with the
 * file; no allocation or copy per record), counting per event samples, lost, throttles, and
 * per type in stats (may be NULL). It may be called again and sees the same again: every walk
 * starts from what open read (the per-event counters zero; events, features, PMU mappings and
 * capabilities and event names from records of the last walk dropped). A record that does not
 * parse (size not a multiple of 8, fields past its end, past the data section) fails with
 * PB_EXIT_BAD_FILE naming its offset. */
int pb_perfdata_for_each(struct pb_perfdata *pd, pb_perfdata_record_fn fn, void *ctx,
			 struct pb_perfdata_stats *stats, struct pb_error *err);

/* The time the IP sink gives a sample without PERF_SAMPLE_TIME: later than any, as
 * PB_SYM_TIME_UNKNOWN (analysis/profile.h) is, so it can be handed on to the symbolizer. */
#define PB_PERFDATA_NO_TIME UINT64_MAX

/* A shortcut for a reader that wants only the IP, pid and time of the samples: those of an
 * event whose samples have a fixed layout (struct pb_sample_layout) with PERF_SAMPLE_IP and no
 * bit of `exclude` in their sample_type, and exactly that layout's size, go to fn with their
 * IP, pid (0 without PERF_SAMPLE_TID) and time (PB_PERFDATA_NO_TIME without PERF_SAMPLE_TIME)
 * and are never decoded into a pb_record; every other record goes to the record fn as in
 * pb_perfdata_for_each, and counts the same either way. Per sample it costs about half of a
 * full decode (a perf.data of page-fault samples, callgrind). */
struct pb_perfdata_ip_sink {
	int (*fn)(void *ctx, int event, uint64_t ip, uint32_t pid, uint64_t time,
		  struct pb_error *err);
	uint64_t exclude;
};

/* pb_perfdata_for_each with samples to sink where it can (sink NULL: none). */
int pb_perfdata_for_each_ip(struct pb_perfdata *pd, pb_perfdata_record_fn fn,
			    const struct pb_perfdata_ip_sink *sink, void *ctx,
			    struct pb_perfdata_stats *stats, struct pb_error *err);

/* The size of each read(2) of the data section (default 1 MiB; 0 restores it). For tests: a
 * small one makes records straddle reads. */
void pb_perfdata_set_read_chunk(struct pb_perfdata *pd, size_t bytes);

/* ---- writer ---- */

struct pb_perfdata_writer;

/* Starts a perf.data at path; nothing appears at path until pb_perfdata_writer_close succeeds
 * (a temporary file in the same folder is renamed over it). */
int pb_perfdata_writer_open(const char *path, struct pb_perfdata_writer **out,
			    struct pb_error *err);
/* Adds an event (before any record). ids may be NULL/0; with several events every event needs
 * ids and PERF_SAMPLE_IDENTIFIER (or PERF_SAMPLE_ID at one position in all) so readers can
 * tell samples apart. name is what perf shows ("cycles", "ibs_op//"). Returns the index. */
int pb_perfdata_writer_add_event(struct pb_perfdata_writer *w, const struct perf_event_attr *attr,
				 const char *name, const uint64_t *ids, size_t nids,
				 struct pb_error *err);
/* Header strings. Defaults are this machine's (uname, /proc/cpuinfo, sysfs PMUs); a test
 * writing a file for another CPU sets them. pb_perfdata_writer_set_pmus replaces the PMU
 * mapping list; pb_perfdata_writer_add_pmu adds one mapping to it. */
int pb_perfdata_writer_set_cpuid(struct pb_perfdata_writer *w, const char *cpuid);
int pb_perfdata_writer_set_cpudesc(struct pb_perfdata_writer *w, const char *cpudesc);
int pb_perfdata_writer_add_pmu(struct pb_perfdata_writer *w, uint32_t type, const char *name);
void pb_perfdata_writer_clear_pmus(struct pb_perfdata_writer *w);
/* Leaves out what identifies the machine or its user: the host name and the command line
 * are written empty, the memory size 0 (a capture bundle a user sends). */
void pb_perfdata_writer_anonymous(struct pb_perfdata_writer *w);

/* Sideband so perf can name the process and resolve symbols. These records carry the first
 * event's sample_id trailer when its attr has sample_id_all. */
int pb_perfdata_writer_comm(struct pb_perfdata_writer *w, uint32_t pid, uint32_t tid,
			    const char *comm, struct pb_error *err);
int pb_perfdata_writer_mmap2(struct pb_perfdata_writer *w, uint32_t pid, uint32_t tid,
			     uint64_t addr, uint64_t len, uint64_t pgoff, uint32_t prot,
			     uint32_t flags, const char *filename, struct pb_error *err);
/* A COMM for pid and an MMAP2 for every executable file mapping of /proc/PID/maps. */
int pb_perfdata_writer_proc_maps(struct pb_perfdata_writer *w, uint32_t pid,
				 struct pb_error *err);
/* A PERF_RECORD_LOST of the first event: lost records the ring dropped. */
int pb_perfdata_writer_lost(struct pb_perfdata_writer *w, uint64_t id, uint64_t lost,
			    struct pb_error *err);
/* A record as stored (header included, size a multiple of 8). */
int pb_perfdata_writer_record(struct pb_perfdata_writer *w, const void *bytes, size_t len,
			      struct pb_error *err);
/* A sample of event index encoded with that event's sample_type. Fields the sample lacks are
 * written as zero; sample types the encoder does not know (branch stacks, registers, user
 * stacks, AUX) are refused when the attr asks for them. */
int pb_perfdata_writer_sample(struct pb_perfdata_writer *w, unsigned event,
			      const struct pb_sample *s, struct pb_error *err);
/* Writes the features (HEADER_BUILD_ID: the GNU build-id of every file an MMAP2 record named)
 * and the header, and renames the file into place. Frees w either way. */
int pb_perfdata_writer_close(struct pb_perfdata_writer *w, struct pb_error *err);
/* Drops the temporary file and frees w. */
void pb_perfdata_writer_abort(struct pb_perfdata_writer *w);

/* ---- pesbench's own samples as a perf.data (measure --record, profile --record) ---- */

struct pb_perfdata_recorder;

/* Nothing is written before the first record; nothing appears at path before close. */
int pb_perfdata_recorder_open(const char *path, struct pb_perfdata_recorder **out,
			      struct pb_error *err);
/* A record of the sampled event as the session read it; attr is what the event was opened
 * with, name perf's name for it, pid the sampled process (its mappings are read from
 * /proc/PID/maps at the first record, while it runs). Samples (PERF_SAMPLE_READ left out: perf
 * would need the group's read format), losses and later mappings (MMAP2) are written; other
 * records are skipped. A failure is kept and reported by close. */
void pb_perfdata_recorder_add(struct pb_perfdata_recorder *r, const struct perf_event_attr *attr,
			      const char *name, uint32_t pid, const struct pb_record *rec);
/* Finishes the file: *samples (may be NULL) the samples written. Frees r either way. Without
 * any record nothing is written and it fails (no event to describe). */
int pb_perfdata_recorder_close(struct pb_perfdata_recorder *r, uint64_t *samples,
			       struct pb_error *err);

#endif
