/* The perf.data reader's own state, shared by its files: perfdata_read.c opens a file (header,
 * attrs, pipe-mode prescan), perfdata_header.c reads the features and answers what the header
 * says, perfdata_walk.c streams the data section. Nothing outside src/perfdata/ includes it. */
#ifndef PB_PERFDATA_INTERNAL_H
#define PB_PERFDATA_INTERNAL_H

#include "perfdata/perfdata.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PERF_MAGIC2 UINT64_C(0x32454c4946524550)         /* "PERFILE2" read as a native u64 */
#define PERF_MAGIC2_SWAPPED UINT64_C(0x50455246494c4532)
#define FILE_HEADER_SIZE 104u
#define PIPE_HEADER_SIZE 16u
#define ATTR_SIZE_VER0 64u
#define MAX_ATTR_ENTRY 4096u
#define MAX_FEATURE_BYTES (64u << 20)
#define MAX_PMU_CAPS 1024
#define READ_CHUNK_BYTES (1u << 20)
#define MAX_RECORD_BYTES 65536u     /* perf_event_header.size is a u16 */

struct section {
	uint64_t offset, size;
};

struct id_entry {
	uint64_t id;
	size_t event;
};

struct pmu_cap {
	char pmu[64], name[64], value[64];
};

/* The header's bitmap and the feature strings and numbers (the PMU lists are kept apart). */
struct header_facts {
	uint64_t features[PB_FEAT_BITS / 64];
	char cpuid[128], arch[32], hostname[128], osrelease[128], version[64];
	char kernel_build_id[41];     /* HEADER_BUILD_ID's entry for the host kernel, hex */
	bool has_nrcpus;
	uint32_t nr_cpus_avail, nr_cpus_online;
};

struct pb_perfdata {
	int fd;                       /* -1 for a memory source */
	const uint8_t *mem;
	uint64_t file_size;
	struct section attrs, data;
	struct pb_perfdata_event *events;
	size_t nevents, events_cap;
	bool pipe;                    /* attrs and features come as records in the data */
	uint64_t prescan_end;         /* pipe mode: records before this were read at open */
	struct id_entry *ids;         /* sorted by id */
	size_t nids;
	/* Where the id sits: u64 index after the header for samples, u64 index from the end of
	 * other records (1 = last); -1 when records carry no id. */
	int id_pos, is_pos;
	bool sample_id_all;
	struct header_facts facts;
	struct pb_perfdata_pmu *pmus;
	size_t npmus;
	struct pmu_cap *caps;
	size_t ncaps;
	/* What open read. A walk may add to it (pipe-mode HEADER_ATTR and HEADER_FEATURE records
	 * past the prescan, EVENT_UPDATE names), and every walk starts again from this, so a
	 * second walk sees what the first saw, not the first's additions on top. */
	struct {
		size_t nevents, npmus, ncaps;
		bool mapped;                  /* a PMU_MAPPINGS feature was read (maybe empty) */
		struct header_facts facts;
		char (*names)[PB_PERFDATA_NAME_MAX];
	} opened;
	/* Data-section buffer (file sources only): file bytes [win_off, win_off + win_len) sit
	 * at window[0..win_len); each read(2) asks for chunk bytes, and the buffer holds a chunk
	 * after the unread part of a straddling record. */
	uint8_t *window;
	size_t chunk, win_cap;
	uint64_t win_off, win_len;
};


/* The event of an id (ids sorted), -1 when none: inline, as the walk asks it per record. */
static inline int find_event_by_id(const struct pb_perfdata *pd, uint64_t id)
{
	size_t lo = 0, hi = pd->nids;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (pd->ids[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < pd->nids && pd->ids[lo].id == id)
		return (int)pd->ids[lo].event;
	return -1;
}

/* A PB_EXIT_BAD_FILE failure, "perf.data: " then the message. */
int pb_pd_bad(struct pb_error *err, const char *what, ...) __attribute__((format(printf, 2, 3)));
/* Reads len bytes at off; fails when they are not all inside the file. */
int pb_pd_read_at(const struct pb_perfdata *pd, uint64_t off, void *dst, size_t len,
		  const char *what, struct pb_error *err);
bool pb_pd_section_inside(const struct pb_perfdata *pd, const struct section *s);

/* perfdata_header.c: the features open keeps, and their payloads (pos: where a pipe-mode
 * record holds it, for messages). */
const char *pb_pd_feature_name(unsigned bit);
bool pb_pd_feature_wanted(unsigned bit);
int pb_pd_parse_feature_buf(struct pb_perfdata *pd, unsigned bit, const uint8_t *buf,
			    size_t len, uint64_t pos, struct pb_error *err);
int pb_pd_parse_feature(struct pb_perfdata *pd, unsigned bit, const struct section *s,
			struct pb_error *err);

/* perfdata_read.c: what a walk meets among the records of a pipe-mode file, and the reset
 * that starts every walk from what open read. */
int pb_pd_pipe_attr(struct pb_perfdata *pd, const uint8_t *rec, size_t size, uint64_t pos,
		    struct pb_error *err);
int pb_pd_pipe_feature(struct pb_perfdata *pd, const uint8_t *rec, size_t size, uint64_t pos,
		       struct pb_error *err);
void pb_pd_event_update(struct pb_perfdata *pd, const uint8_t *rec, size_t size);
int pb_pd_back_to_opened(struct pb_perfdata *pd, struct pb_error *err);

/* perfdata_walk.c: bytes that follow a user record outside its header.size. */
int pb_pd_trailing_bytes(uint32_t type, const uint8_t *rec, size_t size, uint64_t *extra);

#endif
