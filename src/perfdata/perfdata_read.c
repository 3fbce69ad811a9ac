/* Reading perf.data: every offset and size in the file is checked against the file's length
 * before it is used, and the data section is streamed through a fixed buffer so a file of
 * millions of samples costs the memory of one window, not of the file. Records are decoded
 * where read(2) put them: the only bytes copied twice are those of a record that straddles
 * the end of a read. */
#include "perfdata/perfdata.h"

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

static int bad(struct pb_error *err, const char *what, ...) __attribute__((format(printf, 2, 3)));

static int bad(struct pb_error *err, const char *what, ...)
{
	char msg[400];
	va_list ap;
	va_start(ap, what);
	vsnprintf(msg, sizeof msg, what, ap);
	va_end(ap);
	return pb_fail(err, PB_EXIT_BAD_FILE, 0, "perf.data: %s", msg);
}

/* Reads len bytes at off; fails when they are not all inside the file. */
static int read_at(const struct pb_perfdata *pd, uint64_t off, void *dst, size_t len,
		   const char *what, struct pb_error *err)
{
	if (off > pd->file_size || len > pd->file_size - off)
		return bad(err, "%s (%zu bytes at offset %" PRIu64 ") lies past the end of the %" PRIu64
			   "-byte file: the file is truncated or corrupt", what, len, off,
			   pd->file_size);
	if (pd->mem) {
		memcpy(dst, pd->mem + off, len);
		return 0;
	}
	size_t done = 0;
	while (done < len) {
		ssize_t n = pread(pd->fd, (uint8_t *)dst + done, len - done, (off_t)(off + done));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return pb_fail(err, PB_EXIT_BAD_FILE, n < 0 ? errno : 0,
				       "perf.data: cannot read %s at offset %" PRIu64 ": %s", what,
				       off + done, n < 0 ? strerror(errno) : "unexpected end of file");
		done += (size_t)n;
	}
	return 0;
}

static bool section_inside(const struct pb_perfdata *pd, const struct section *s)
{
	return s->offset <= pd->file_size && s->size <= pd->file_size - s->offset;
}

/* ---- feature payloads: a cursor that refuses to step past the section ---- */

struct fcur {
	const uint8_t *p;
	size_t pos, len;
	bool failed;
};

static bool fhave(struct fcur *c, uint64_t n)
{
	if (c->failed || n > c->len - c->pos) {
		c->failed = true;
		return false;
	}
	return true;
}

static uint32_t fu32(struct fcur *c)
{
	uint32_t v = 0;
	if (fhave(c, 4)) {
		memcpy(&v, c->p + c->pos, 4);
		c->pos += 4;
	}
	return v;
}

/* perf_header_string: u32 len (padded length), then len bytes holding a NUL-terminated
 * string. Copies it (cut to dst_len) into dst. */
static bool fstring(struct fcur *c, char *dst, size_t dst_len)
{
	uint32_t len = fu32(c);
	if (!fhave(c, len) || len == 0) {
		c->failed = true;
		return false;
	}
	const char *s = (const char *)c->p + c->pos;
	size_t n = strnlen(s, len);
	if (n == len) { /* not terminated inside its own length */
		c->failed = true;
		return false;
	}
	if (dst_len) {
		size_t k = n < dst_len - 1 ? n : dst_len - 1;
		memcpy(dst, s, k);
		dst[k] = '\0';
	}
	c->pos += len;
	return true;
}

static int find_event_by_id(const struct pb_perfdata *pd, uint64_t id)
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

static int parse_event_desc(struct pb_perfdata *pd, struct fcur *c)
{
	uint32_t nr = fu32(c), attr_size = fu32(c);
	if (c->failed || attr_size < ATTR_SIZE_VER0 || attr_size > MAX_ATTR_ENTRY)
		return -1;
	for (uint32_t i = 0; i < nr && !c->failed; i++) {
		if (!fhave(c, attr_size))
			return -1;
		c->pos += attr_size;
		uint32_t nr_ids = fu32(c);
		char name[PB_PERFDATA_NAME_MAX];
		if (!fstring(c, name, sizeof name))
			return -1;
		if (!fhave(c, (uint64_t)nr_ids * 8))
			return -1;
		int ev = -1;
		if (nr_ids > 0) {
			uint64_t id0;
			memcpy(&id0, c->p + c->pos, 8);
			ev = find_event_by_id(pd, id0);
		} else if (i < pd->nevents && nr == pd->nevents) {
			ev = (int)i;
		}
		c->pos += (size_t)nr_ids * 8;
		if (ev >= 0)
			memcpy(pd->events[ev].name, name, sizeof name);
	}
	return c->failed ? -1 : 0;
}

static int parse_pmu_mappings(struct pb_perfdata *pd, struct fcur *c)
{
	uint32_t nr = fu32(c);
	if (c->failed || nr > PB_PERFDATA_MAX_PMUS)
		return -1;
	pd->pmus = calloc(nr ? nr : 1, sizeof(*pd->pmus));
	if (!pd->pmus)
		return -1;
	for (uint32_t i = 0; i < nr; i++) {
		pd->pmus[i].type = fu32(c);
		if (!fstring(c, pd->pmus[i].name, sizeof pd->pmus[i].name))
			return -1;
		pd->npmus++;
	}
	return 0;
}

static int parse_pmu_caps(struct pb_perfdata *pd, struct fcur *c)
{
	uint32_t nr_pmu = fu32(c);
	if (c->failed || nr_pmu > PB_PERFDATA_MAX_PMUS)
		return -1;
	for (uint32_t i = 0; i < nr_pmu; i++) {
		uint32_t nr_caps = fu32(c);
		if (c->failed || nr_caps > MAX_PMU_CAPS)
			return -1;
		size_t first = pd->ncaps;
		if (pd->ncaps + nr_caps > MAX_PMU_CAPS)
			return -1;
		struct pmu_cap *grown = realloc(pd->caps, (pd->ncaps + nr_caps + 1) * sizeof(*grown));
		if (!grown)
			return -1;
		pd->caps = grown;
		for (uint32_t k = 0; k < nr_caps; k++) {
			struct pmu_cap *cap = &pd->caps[pd->ncaps];
			memset(cap, 0, sizeof(*cap));
			if (!fstring(c, cap->name, sizeof cap->name) ||
			    !fstring(c, cap->value, sizeof cap->value))
				return -1;
			pd->ncaps++;
		}
		char pmu[64];
		if (!fstring(c, pmu, sizeof pmu))
			return -1;
		for (size_t k = first; k < pd->ncaps; k++)
			memcpy(pd->caps[k].pmu, pmu, sizeof pmu);
	}
	return 0;
}

static const char *feature_name(unsigned bit)
{
	switch (bit) {
	case PB_FEAT_TRACING_DATA: return "TRACING_DATA";
	case PB_FEAT_BUILD_ID: return "BUILD_ID";
	case PB_FEAT_HOSTNAME: return "HOSTNAME";
	case PB_FEAT_OSRELEASE: return "OSRELEASE";
	case PB_FEAT_VERSION: return "VERSION";
	case PB_FEAT_ARCH: return "ARCH";
	case PB_FEAT_NRCPUS: return "NRCPUS";
	case PB_FEAT_CPUID: return "CPUID";
	case PB_FEAT_EVENT_DESC: return "EVENT_DESC";
	case PB_FEAT_PMU_MAPPINGS: return "PMU_MAPPINGS";
	case PB_FEAT_PMU_CAPS: return "PMU_CAPS";
	default: return "feature";
	}
}

static bool feature_wanted(unsigned bit)
{
	switch (bit) {
	case PB_FEAT_HOSTNAME: case PB_FEAT_OSRELEASE: case PB_FEAT_VERSION: case PB_FEAT_ARCH:
	case PB_FEAT_NRCPUS: case PB_FEAT_CPUID: case PB_FEAT_EVENT_DESC:
	case PB_FEAT_PMU_MAPPINGS: case PB_FEAT_PMU_CAPS:
		return true;
	default:
		return false; /* not needed for the analysis: skipped unread */
	}
}

/* One feature payload (a file section, or the body of a pipe-mode HEADER_FEATURE record). */
static int parse_feature_buf(struct pb_perfdata *pd, unsigned bit, const uint8_t *buf,
			     size_t len, uint64_t offset, struct pb_error *err)
{
	struct fcur c = {.p = buf, .len = len};
	struct header_facts *f = &pd->facts;
	int rc = 0;
	switch (bit) {
	case PB_FEAT_HOSTNAME: rc = fstring(&c, f->hostname, sizeof f->hostname) ? 0 : -1; break;
	case PB_FEAT_OSRELEASE: rc = fstring(&c, f->osrelease, sizeof f->osrelease) ? 0 : -1; break;
	case PB_FEAT_VERSION: rc = fstring(&c, f->version, sizeof f->version) ? 0 : -1; break;
	case PB_FEAT_ARCH: rc = fstring(&c, f->arch, sizeof f->arch) ? 0 : -1; break;
	case PB_FEAT_CPUID: rc = fstring(&c, f->cpuid, sizeof f->cpuid) ? 0 : -1; break;
	case PB_FEAT_NRCPUS:
		f->nr_cpus_avail = fu32(&c);
		f->nr_cpus_online = fu32(&c);
		f->has_nrcpus = !c.failed;
		rc = c.failed ? -1 : 0;
		break;
	case PB_FEAT_EVENT_DESC: rc = parse_event_desc(pd, &c); break;
	case PB_FEAT_PMU_MAPPINGS:
		if (pd->pmus) /* a second copy (pipe mode may repeat features): keep the first */
			return 0;
		rc = parse_pmu_mappings(pd, &c);
		break;
	case PB_FEAT_PMU_CAPS: rc = parse_pmu_caps(pd, &c); break;
	}
	if (rc)
		return bad(err, "the %s feature (offset %" PRIu64 ", %zu bytes) is corrupt",
			   feature_name(bit), offset, len);
	return 0;
}

static int parse_feature(struct pb_perfdata *pd, unsigned bit, const struct section *s,
			 struct pb_error *err)
{
	if (!feature_wanted(bit))
		return 0;
	if (s->size > MAX_FEATURE_BYTES)
		return bad(err, "the %s section claims %" PRIu64 " bytes, more than any perf writes",
			   feature_name(bit), s->size);
	uint8_t *buf = malloc(s->size ? s->size : 1);
	if (!buf)
		return pb_fail(err, PB_EXIT_FAILURE, ENOMEM, "perf.data: out of memory");
	int rc = read_at(pd, s->offset, buf, s->size, feature_name(bit), err);
	if (!rc)
		rc = parse_feature_buf(pd, bit, buf, s->size, s->offset, err);
	free(buf);
	return rc;
}

static int cmp_id(const void *a, const void *b)
{
	const struct id_entry *x = a, *y = b;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* perf's rule (evsel id_pos / is_pos): where the id sits in samples, counted from the start,
 * and in the sample_id trailer of other records, counted from the end (1: the last word).
 * PERF_SAMPLE_IDENTIFIER puts it at that end; PERF_SAMPLE_ID alone puts it past the fields
 * that lie between it and that end. */
static int id_pos(uint64_t st, int identifier_pos, uint64_t fields_before)
{
	if (st & PERF_SAMPLE_IDENTIFIER)
		return identifier_pos;
	if (!(st & PERF_SAMPLE_ID))
		return -1;
	return identifier_pos + __builtin_popcountll(st & fields_before);
}

static int sample_id_pos(uint64_t st)
{
	return id_pos(st, 0, PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR);
}

static int trailer_id_pos(uint64_t st)
{
	return id_pos(st, 1, PERF_SAMPLE_CPU | PERF_SAMPLE_STREAM_ID);
}

/* perf requires every event of a file to put the id in the same place; so does pesbench,
 * or samples could not be told apart. */
static int index_ids(struct pb_perfdata *pd, struct pb_error *err)
{
	size_t total = 0;
	for (size_t i = 0; i < pd->nevents; i++)
		total += pd->events[i].nids;
	struct id_entry *ids = realloc(pd->ids, (total ? total : 1) * sizeof(*ids));
	if (!ids)
		return pb_fail(err, PB_EXIT_FAILURE, ENOMEM, "perf.data: out of memory");
	pd->ids = ids;
	pd->nids = 0;
	for (size_t i = 0; i < pd->nevents; i++)
		for (size_t k = 0; k < pd->events[i].nids; k++)
			pd->ids[pd->nids++] = (struct id_entry){pd->events[i].ids[k], i};
	qsort(pd->ids, pd->nids, sizeof(*pd->ids), cmp_id);

	uint64_t st0 = pd->events[0].attr.sample_type;
	pd->id_pos = sample_id_pos(st0);
	pd->is_pos = trailer_id_pos(st0);
	pd->sample_id_all = pd->events[0].attr.sample_id_all;
	for (size_t i = 1; i < pd->nevents; i++) {
		uint64_t st = pd->events[i].attr.sample_type;
		if (sample_id_pos(st) != pd->id_pos || trailer_id_pos(st) != pd->is_pos ||
		    pd->events[i].attr.sample_id_all != pd->sample_id_all)
			return bad(err, "events 0 and %zu put the sample id in different places "
				   "(sample_type %#llx vs %#llx): samples cannot be told apart", i,
				   (unsigned long long)st0, (unsigned long long)st);
	}
	return 0;
}

/* Appends an event: alen bytes of attr (zero-extended or cut to this build's struct) and its
 * ids (unaligned bytes). The caller re-indexes the ids. */
static int add_event(struct pb_perfdata *pd, const uint8_t *attr, size_t alen,
		     const uint8_t *ids, size_t nids, struct pb_error *err)
{
	if (pd->nevents == PB_PERFDATA_MAX_EVENTS)
		return bad(err, "more than %d events: more than pesbench reads",
			   PB_PERFDATA_MAX_EVENTS);
	if (pd->nevents == pd->events_cap) {
		size_t cap = pd->events_cap ? pd->events_cap * 2 : 4;
		struct pb_perfdata_event *ev = realloc(pd->events, cap * sizeof(*ev));
		if (!ev)
			return pb_fail(err, PB_EXIT_FAILURE, ENOMEM, "perf.data: out of memory");
		pd->events = ev;
		pd->events_cap = cap;
	}
	struct pb_perfdata_event *ev = &pd->events[pd->nevents];
	memset(ev, 0, sizeof(*ev));
	memcpy(&ev->attr, attr, alen < sizeof ev->attr ? alen : sizeof ev->attr);
	if (nids) {
		ev->ids = malloc(nids * 8);
		if (!ev->ids)
			return pb_fail(err, PB_EXIT_FAILURE, ENOMEM, "perf.data: out of memory");
		memcpy(ev->ids, ids, nids * 8);
		ev->nids = nids;
	}
	pd->nevents++;
	pb_record_format_from_attr(&ev->fmt, &ev->attr);
	pb_sample_layout_init(&ev->layout, ev->fmt.sample_type);
	snprintf(ev->name, sizeof ev->name, "type%u/config=%#llx", ev->attr.type,
		 (unsigned long long)ev->attr.config);
	return 0;
}

static int read_attrs(struct pb_perfdata *pd, uint64_t attr_size, struct pb_error *err)
{
	if (attr_size < ATTR_SIZE_VER0 + 16 || attr_size > MAX_ATTR_ENTRY)
		return bad(err, "attr entries of %" PRIu64 " bytes: not a size perf writes", attr_size);
	if (!section_inside(pd, &pd->attrs))
		return bad(err, "the attrs section lies past the end of the file (truncated?)");
	if (pd->attrs.size % attr_size != 0 || pd->attrs.size == 0)
		return bad(err, "the attrs section (%" PRIu64 " bytes) is not a whole number of %"
			   PRIu64 "-byte attrs", pd->attrs.size, attr_size);
	uint64_t n = pd->attrs.size / attr_size;
	if (n > PB_PERFDATA_MAX_EVENTS)
		return bad(err, "%" PRIu64 " events: more than pesbench reads (%d)", n,
			   PB_PERFDATA_MAX_EVENTS);
	uint8_t entry[MAX_ATTR_ENTRY];
	for (uint64_t i = 0; i < n; i++) {
		if (read_at(pd, pd->attrs.offset + i * attr_size, entry, attr_size, "an attr", err))
			return -1;
		size_t alen = attr_size - 16;
		struct section ids;
		memcpy(&ids, entry + alen, sizeof ids);
		if (!section_inside(pd, &ids) || ids.size % 8)
			return bad(err, "the id list of event %" PRIu64 " is outside the file or not a "
				   "list of u64 ids", i);
		uint8_t *idbuf = malloc(ids.size ? ids.size : 1);
		if (!idbuf)
			return pb_fail(err, PB_EXIT_FAILURE, ENOMEM, "perf.data: out of memory");
		int rc = read_at(pd, ids.offset, idbuf, ids.size, "an id list", err);
		if (!rc)
			rc = add_event(pd, entry, alen, idbuf, ids.size / 8, err);
		free(idbuf);
		if (rc)
			return -1;
	}
	return index_ids(pd, err);
}

/* PERF_RECORD_HEADER_ATTR: the attr (attr.size bytes, 0 meaning the first published 64) and
 * then the event's ids up to the record's end. */
static int pipe_attr(struct pb_perfdata *pd, const uint8_t *rec, size_t size, uint64_t pos,
		     struct pb_error *err)
{
	uint32_t asize;
	if (size < 8 + ATTR_SIZE_VER0)
		return bad(err, "HEADER_ATTR record at offset %" PRIu64 " is too short", pos);
	memcpy(&asize, rec + 8 + offsetof(struct perf_event_attr, size), 4);
	if (asize == 0)
		asize = ATTR_SIZE_VER0;
	if (asize < ATTR_SIZE_VER0 || asize > size - 8 || (size - 8 - asize) % 8)
		return bad(err, "HEADER_ATTR record at offset %" PRIu64 " has an attr of %u bytes "
			   "that does not fit its %zu bytes", pos, asize, size);
	if (add_event(pd, rec + 8, asize, rec + 8 + asize, (size - 8 - asize) / 8, err))
		return -1;
	return index_ids(pd, err);
}

/* PERF_RECORD_EVENT_UPDATE of type NAME (2): u64 type, u64 id, then the name. */
static void event_update(struct pb_perfdata *pd, const uint8_t *rec, size_t size)
{
	uint64_t type, id;
	if (size < 8 + 16 + 1)
		return;
	memcpy(&type, rec + 8, 8);
	memcpy(&id, rec + 16, 8);
	int ev = find_event_by_id(pd, id);
	if (type != 2 || ev < 0)
		return;
	size_t n = strnlen((const char *)rec + 24, size - 24);
	if (n == size - 24 || n == 0)
		return;
	snprintf(pd->events[ev].name, sizeof pd->events[ev].name, "%s", (const char *)rec + 24);
}

static int pipe_feature(struct pb_perfdata *pd, const uint8_t *rec, size_t size, uint64_t pos,
			struct pb_error *err)
{
	uint64_t bit;
	if (size < 16)
		return bad(err, "HEADER_FEATURE record at offset %" PRIu64 " is too short", pos);
	memcpy(&bit, rec + 8, 8);
	if (bit >= PB_FEAT_BITS)
		return 0;
	pd->facts.features[bit / 64] |= UINT64_C(1) << (bit % 64);
	if (bit == PB_FEAT_COMPRESSED)
		return bad(err, "the data is zstd-compressed (perf record -z), which pesbench does "
			   "not decompress; record without -z");
	if (!feature_wanted((unsigned)bit))
		return 0;
	return parse_feature_buf(pd, (unsigned)bit, rec + 16, size - 16, pos, err);
}

static int trailing_bytes(uint32_t type, const uint8_t *rec, size_t size, uint64_t *extra);

/* Pipe mode: perf writes the attrs and features as records before the first kernel record;
 * they are read here so the events are known before the walk. Later HEADER_ATTR records are
 * taken during the walk. */
static int pipe_prescan(struct pb_perfdata *pd, struct pb_error *err)
{
	uint8_t *rec = malloc(MAX_RECORD_BYTES);
	if (!rec)
		return pb_fail(err, PB_EXIT_FAILURE, ENOMEM, "perf.data: out of memory");
	uint64_t pos = pd->data.offset, end = pd->data.offset + pd->data.size;
	int rc = 0;
	while (!rc && pos < end) {
		struct perf_event_header h;
		if (end - pos < sizeof h) {
			rc = bad(err, "%" PRIu64 " stray bytes at offset %" PRIu64 ": the recording was "
				 "cut short", end - pos, pos);
			break;
		}
		if (read_at(pd, pos, &h, sizeof h, "a record header", err)) {
			rc = -1;
			break;
		}
		if (h.type < PB_PERF_RECORD_USER_TYPE_START)
			break;
		if (h.size < sizeof h || h.size > end - pos) {
			rc = bad(err, "record at offset %" PRIu64 " (type %u, %u bytes) is corrupt or "
				 "runs past the end of the file", pos, h.type, h.size);
			break;
		}
		uint64_t extra = 0;
		if (read_at(pd, pos, rec, h.size, "a record", err) ||
		    trailing_bytes(h.type, rec, h.size, &extra)) {
			rc = pb_fail(err, PB_EXIT_BAD_FILE, 0, "perf.data: record at offset %" PRIu64
				     " is too short", pos);
			break;
		}
		if (h.type == PB_PERF_RECORD_HEADER_ATTR)
			rc = pipe_attr(pd, rec, h.size, pos, err);
		else if (h.type == PB_PERF_RECORD_HEADER_FEATURE)
			rc = pipe_feature(pd, rec, h.size, pos, err);
		else if (h.type == PB_PERF_RECORD_EVENT_UPDATE)
			event_update(pd, rec, h.size);
		if (extra > end - pos - h.size)
			rc = bad(err, "the data of the record at offset %" PRIu64 " runs past the end",
				 pos);
		pos += h.size + extra;
	}
	free(rec);
	pd->prescan_end = pos;
	if (!rc && pd->nevents == 0)
		rc = bad(err, "pipe-mode file without a HEADER_ATTR record before its first kernel "
			 "record: no events to read samples with");
	return rc;
}

static int open_common(struct pb_perfdata *pd, struct pb_error *err)
{
	uint8_t h[FILE_HEADER_SIZE];
	uint64_t magic = 0, size = 0;
	if (pd->file_size < 16)
		return bad(err, "%" PRIu64 " bytes: too short for a perf.data header", pd->file_size);
	if (read_at(pd, 0, h, 16, "the header", err))
		return -1;
	memcpy(&magic, h, 8);
	memcpy(&size, h + 8, 8);
	if (magic == PERF_MAGIC2_SWAPPED)
		return bad(err, "the file was written on a machine of the other byte order, which "
			   "pesbench does not read");
	if (!memcmp(h, "PERFFILE", 8))
		return bad(err, "version 1 (\"PERFFILE\") format from a perf older than 2.6.35; "
			   "pesbench reads version 2 only");
	if (magic != PERF_MAGIC2)
		return bad(err, "no PERFILE2 magic: not a perf.data file");
	if (size == PIPE_HEADER_SIZE) {
		pd->pipe = true;
		pd->data.offset = PIPE_HEADER_SIZE;
		pd->data.size = pd->file_size - PIPE_HEADER_SIZE;
		return pipe_prescan(pd, err);
	}
	if (size < FILE_HEADER_SIZE)
		return bad(err, "header of %" PRIu64 " bytes: older than any perf.data pesbench reads",
			   size);
	if (read_at(pd, 0, h, FILE_HEADER_SIZE, "the header", err))
		return -1;
	uint64_t attr_size;
	memcpy(&attr_size, h + 16, 8);
	memcpy(&pd->attrs, h + 24, 16);
	memcpy(&pd->data, h + 40, 16);
	memcpy(pd->facts.features, h + 72, sizeof pd->facts.features);
	if (!section_inside(pd, &pd->data))
		return bad(err, "the data section (%" PRIu64 " bytes at %" PRIu64 ") runs past the "
			   "end of the %" PRIu64 "-byte file: the recording was cut short",
			   pd->data.size, pd->data.offset, pd->file_size);
	if (read_attrs(pd, attr_size, err))
		return -1;
	if (pb_perfdata_has_feature(pd, PB_FEAT_COMPRESSED))
		return bad(err, "the data section is zstd-compressed (perf record -z), which "
			   "pesbench does not decompress; record without -z");

	/* Feature sections: a table right after the data section, one entry per bit set. */
	uint64_t table = pd->data.offset + pd->data.size;
	unsigned k = 0;
	for (unsigned bit = 1; bit < PB_FEAT_BITS; bit++) {
		if (!pb_perfdata_has_feature(pd, bit))
			continue;
		struct section s;
		if (read_at(pd, table + (uint64_t)k * sizeof s, &s, sizeof s, "the feature table",
			    err))
			return -1;
		k++;
		if (!section_inside(pd, &s))
			return bad(err, "feature section %u (%s) lies past the end of the file: the "
				   "file is truncated or corrupt", bit, feature_name(bit));
		if (parse_feature(pd, bit, &s, err))
			return -1;
	}
	return 0;
}

/* Notes what open read (see `opened`). */
static int keep_opened(struct pb_perfdata *pd, struct pb_error *err)
{
	pd->opened.names = malloc((pd->nevents ? pd->nevents : 1) * sizeof(*pd->opened.names));
	if (!pd->opened.names)
		return pb_fail(err, PB_EXIT_FAILURE, ENOMEM, "perf.data: out of memory");
	for (size_t i = 0; i < pd->nevents; i++)
		memcpy(pd->opened.names[i], pd->events[i].name, PB_PERFDATA_NAME_MAX);
	pd->opened.nevents = pd->nevents;
	pd->opened.npmus = pd->npmus;
	pd->opened.mapped = pd->pmus != NULL;
	pd->opened.ncaps = pd->ncaps;
	pd->opened.facts = pd->facts;
	return 0;
}

/* Drops what the last walk added to what open read: its events (with their ids), features,
 * PMU mappings and capabilities, and the names it gave. */
static int back_to_opened(struct pb_perfdata *pd, struct pb_error *err)
{
	bool reindex = pd->nevents != pd->opened.nevents;
	for (size_t i = pd->opened.nevents; i < pd->nevents; i++)
		free(pd->events[i].ids);
	pd->nevents = pd->opened.nevents;
	for (size_t i = 0; i < pd->nevents; i++)
		memcpy(pd->events[i].name, pd->opened.names[i], PB_PERFDATA_NAME_MAX);
	if (!pd->opened.mapped && pd->pmus) { /* mapped by a record of the walk */
		free(pd->pmus);
		pd->pmus = NULL;
	}
	pd->npmus = pd->opened.npmus;
	pd->ncaps = pd->opened.ncaps; /* a walk only appends capabilities */
	pd->facts = pd->opened.facts;
	/* the index of the events open read was valid, so it is again */
	return reindex ? index_ids(pd, err) : 0;
}

static int open_reader(struct pb_perfdata *pd, struct pb_error *err)
{
	if (open_common(pd, err))
		return -1;
	return keep_opened(pd, err);
}

int pb_perfdata_open_memory(const void *buf, size_t len, struct pb_perfdata **out,
			    struct pb_error *err)
{
	struct pb_perfdata *pd = calloc(1, sizeof(*pd));
	if (!pd)
		return pb_fail(err, PB_EXIT_FAILURE, ENOMEM, "perf.data: out of memory");
	pd->fd = -1;
	pd->mem = buf;
	pd->file_size = len;
	if (open_reader(pd, err)) {
		pb_perfdata_close(pd);
		return -1;
	}
	*out = pd;
	return 0;
}

/* Standard input copied into an unlinked file of TMPDIR: the reader reads sections by offset
 * and walks the data again for each pass, which a pipe cannot give. Memory stays bounded; the
 * disk holds the recording while it is read. */
static int spool_stdin(struct pb_error *err)
{
	if (isatty(STDIN_FILENO))
		return pb_fail(err, PB_EXIT_USAGE, 0,
			       "-: standard input is a terminal; pipe a recording in (perf record "
			       "-o - ... | pesbench perfdata -)");
	const char *dir = getenv("TMPDIR");
	if (!dir || !dir[0])
		dir = "/tmp";
	int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd < 0)
		return pb_fail(err, PB_EXIT_OUTPUT, errno,
			       "-: cannot make a temporary file in %s for standard input: %s", dir,
			       strerror(errno));
	static uint8_t buf[1 << 16];
	for (;;) {
		ssize_t n = read(STDIN_FILENO, buf, sizeof buf);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;
			close(fd);
			return pb_fail(err, PB_EXIT_BAD_FILE, e, "-: cannot read standard input: %s",
				       strerror(e));
		}
		if (!n)
			break;
		for (ssize_t done = 0; done < n;) {
			ssize_t w = write(fd, buf + done, (size_t)(n - done));
			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0) {
				int e = errno;
				close(fd);
				return pb_fail(err, PB_EXIT_OUTPUT, e,
					       "-: cannot keep standard input in %s: %s", dir,
					       strerror(e));
			}
			done += w;
		}
	}
	return fd;
}

int pb_perfdata_open(const char *path, struct pb_perfdata **out, struct pb_error *err)
{
	int fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) : spool_stdin(err);
	if (fd < 0 && !strcmp(path, "-"))
		return -1;
	if (fd < 0)
		return pb_fail(err, errno == ENOENT ? PB_EXIT_USAGE : PB_EXIT_BAD_FILE, errno,
			       "cannot open %s: %s", path, strerror(errno));
	struct stat st;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return pb_fail(err, PB_EXIT_BAD_FILE, 0,
			       "%s is not a regular file; pesbench reads perf.data files, not pipes",
			       path);
	}
	struct pb_perfdata *pd = calloc(1, sizeof(*pd));
	if (!pd) {
		close(fd);
		return pb_fail(err, PB_EXIT_FAILURE, ENOMEM, "perf.data: out of memory");
	}
	pd->fd = fd;
	pd->file_size = (uint64_t)st.st_size;
	pd->chunk = READ_CHUNK_BYTES;
	if (open_reader(pd, err)) {
		if (err) {
			char msg[sizeof err->msg];
			memcpy(msg, err->msg, sizeof msg);
			pb_fail(err, err->code, err->sys_errno, "%s: %.*s",
				strcmp(path, "-") ? path : "standard input", 400, msg);
		}
		pb_perfdata_close(pd);
		return -1;
	}
	*out = pd;
	return 0;
}

void pb_perfdata_close(struct pb_perfdata *pd)
{
	if (!pd)
		return;
	if (pd->fd >= 0)
		close(pd->fd);
	for (size_t i = 0; i < pd->nevents; i++)
		free(pd->events[i].ids);
	free(pd->events);
	free(pd->ids);
	free(pd->pmus);
	free(pd->caps);
	free(pd->opened.names);
	free(pd->window);
	free(pd);
}

void pb_perfdata_set_read_chunk(struct pb_perfdata *pd, size_t bytes)
{
	free(pd->window);
	pd->window = NULL;
	pd->chunk = bytes ? bytes : READ_CHUNK_BYTES;
}

size_t pb_perfdata_nevents(const struct pb_perfdata *pd) { return pd->nevents; }

struct pb_perfdata_event *pb_perfdata_event(struct pb_perfdata *pd, size_t index)
{
	return index < pd->nevents ? &pd->events[index] : NULL;
}

bool pb_perfdata_has_feature(const struct pb_perfdata *pd, unsigned feature)
{
	return feature < PB_FEAT_BITS && (pd->facts.features[feature / 64] >> (feature % 64)) & 1;
}

uint64_t pb_perfdata_data_size(const struct pb_perfdata *pd) { return pd->data.size; }
bool pb_perfdata_is_pipe(const struct pb_perfdata *pd) { return pd->pipe; }
const char *pb_perfdata_cpuid(const struct pb_perfdata *pd) { return pd->facts.cpuid; }
const char *pb_perfdata_arch(const struct pb_perfdata *pd) { return pd->facts.arch; }
const char *pb_perfdata_hostname(const struct pb_perfdata *pd) { return pd->facts.hostname; }
const char *pb_perfdata_osrelease(const struct pb_perfdata *pd) { return pd->facts.osrelease; }
const char *pb_perfdata_perf_version(const struct pb_perfdata *pd) { return pd->facts.version; }

bool pb_perfdata_nr_cpus(const struct pb_perfdata *pd, uint32_t *available, uint32_t *online)
{
	if (!pd->facts.has_nrcpus)
		return false;
	*available = pd->facts.nr_cpus_avail;
	*online = pd->facts.nr_cpus_online;
	return true;
}

size_t pb_perfdata_npmus(const struct pb_perfdata *pd) { return pd->npmus; }

const struct pb_perfdata_pmu *pb_perfdata_pmu(const struct pb_perfdata *pd, size_t index)
{
	return index < pd->npmus ? &pd->pmus[index] : NULL;
}

const char *pb_perfdata_pmu_name(const struct pb_perfdata *pd, uint32_t type)
{
	for (size_t i = 0; i < pd->npmus; i++)
		if (pd->pmus[i].type == type)
			return pd->pmus[i].name;
	return NULL;
}

const char *pb_perfdata_pmu_cap(const struct pb_perfdata *pd, const char *pmu, const char *name)
{
	for (size_t i = 0; i < pd->ncaps; i++)
		if (!strcmp(pd->caps[i].pmu, pmu) && !strcmp(pd->caps[i].name, name))
			return pd->caps[i].value;
	return NULL;
}

/* ---- the data section ---- */

/* The event a record belongs to, as perf decides: the only one, or by the id at id_pos /
 * is_pos; records without an id belong to the first. -1: an id no event has. */
static int record_event(const struct pb_perfdata *pd, const uint8_t *rec, size_t size,
			uint32_t type)
{
	if (pd->nevents == 1)
		return 0;
	uint64_t id;
	if (type == PERF_RECORD_SAMPLE) {
		if (pd->id_pos < 0)
			return 0;
		size_t at = 8 + (size_t)pd->id_pos * 8;
		if (at + 8 > size)
			return -1;
		memcpy(&id, rec + at, 8);
	} else {
		if (!pd->sample_id_all || pd->is_pos < 0)
			return 0;
		size_t back = (size_t)pd->is_pos * 8;
		if (back + 8 > size)
			return -1;
		memcpy(&id, rec + size - back, 8);
	}
	return find_event_by_id(pd, id);
}

static void count_record(struct pb_perfdata *pd, int event, const struct pb_record *rec,
			 struct pb_perfdata_stats *stats)
{
	struct pb_perfdata_event *ev = event >= 0 ? &pd->events[event] : NULL;
	int target;
	switch (rec->type) {
	case PERF_RECORD_SAMPLE:
		stats->samples++;
		if (ev)
			ev->samples++;
		else
			stats->unattributed++;
		break;
	case PERF_RECORD_LOST:
		target = find_event_by_id(pd, rec->u.lost.id);
		if (target < 0)
			target = event;
		if (target >= 0)
			pd->events[target].lost += rec->u.lost.lost;
		break;
	case PERF_RECORD_LOST_SAMPLES:
		if (ev)
			ev->lost_samples += rec->u.lost_samples.lost;
		break;
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
		target = find_event_by_id(pd, rec->u.throttle.id);
		if (target < 0)
			target = event;
		if (target >= 0) {
			if (rec->type == PERF_RECORD_THROTTLE)
				pd->events[target].throttles++;
			else
				pd->events[target].unthrottles++;
		}
		break;
	}
}

/* Bytes that follow a user record outside its header.size (AUXTRACE data, tracing data). */
static int trailing_bytes(uint32_t type, const uint8_t *rec, size_t size, uint64_t *extra)
{
	*extra = 0;
	if (type == PB_PERF_RECORD_AUXTRACE) {
		if (size < 16)
			return -1;
		memcpy(extra, rec + 8, 8);
	} else if (type == PB_PERF_RECORD_HEADER_TRACING_DATA) {
		uint32_t n;
		if (size < 12)
			return -1;
		memcpy(&n, rec + 8, 4);
		*extra = ((uint64_t)n + 7) & ~UINT64_C(7);
	}
	return 0;
}

/* Makes file bytes [pos, pos + need) readable at window + (pos - win_off), need <= 64 KiB,
 * pos + need inside the data section ending at end. Bytes of the window from pos on (the
 * start of a record that straddles the last read) move to the front; then whole chunks are
 * read after them until need bytes are there. */
static int window_fill(struct pb_perfdata *pd, uint64_t pos, uint64_t need, uint64_t end,
		       struct pb_error *err)
{
	if (!pd->window) {
		pd->win_cap = pd->chunk + MAX_RECORD_BYTES;
		pd->window = malloc(pd->win_cap);
		if (!pd->window)
			return pb_fail(err, PB_EXIT_FAILURE, ENOMEM, "perf.data: out of memory");
		pd->win_len = 0;
	}
	uint64_t keep = 0;
	if (pos >= pd->win_off && pos < pd->win_off + pd->win_len) {
		keep = pd->win_off + pd->win_len - pos;
		memmove(pd->window, pd->window + (pos - pd->win_off), (size_t)keep);
	}
	pd->win_off = pos;
	pd->win_len = keep;
	while (pd->win_len < need) {
		uint64_t at = pos + pd->win_len, n = end - at;
		if (n > pd->chunk)
			n = pd->chunk;
		if (read_at(pd, at, pd->window + pd->win_len, (size_t)n, "the data section", err))
			return -1;
		pd->win_len += n;
	}
	return 0;
}

/* A record handed on with its header only: one pesbench does not decode (user records) or a
 * sample of no known event. */
static int unparsed(struct pb_record *rec, const struct perf_event_header *h)
{
	memset(rec, 0, sizeof *rec);
	rec->type = h->type;
	rec->misc = h->misc;
	rec->size = h->size;
	return PB_PARSE_UNKNOWN;
}

int pb_perfdata_for_each(struct pb_perfdata *pd, pb_perfdata_record_fn fn, void *ctx,
			 struct pb_perfdata_stats *stats, struct pb_error *err)
{
	return pb_perfdata_for_each_ip(pd, fn, NULL, ctx, stats, err);
}

int pb_perfdata_for_each_ip(struct pb_perfdata *pd, pb_perfdata_record_fn fn,
			    const struct pb_perfdata_ip_sink *sink, void *ctx,
			    struct pb_perfdata_stats *stats, struct pb_error *err)
{
	struct pb_perfdata_stats local;
	if (!stats)
		stats = &local;
	memset(stats, 0, sizeof(*stats));
	if (back_to_opened(pd, err))
		return -1;
	for (size_t i = 0; i < pd->nevents; i++) {
		struct pb_perfdata_event *ev = &pd->events[i];
		ev->samples = ev->lost = ev->lost_samples = ev->throttles = ev->unthrottles = 0;
	}
	pd->win_off = pd->win_len = 0; /* a walk after a walk reads from the start again */
	const uint64_t end = pd->data.offset + pd->data.size;
	uint64_t pos = pd->data.offset;
	struct pb_record rec;
	/* rec holds a sample the fast path decoded with a layout of this sample_type (UINT64_MAX,
	 * which has no fixed layout: none), so the next one of the same layout rewrites only its
	 * fields */
	uint64_t rec_fast_type = UINT64_MAX;
	/* File bytes [have_off, have_end) sit at have: the whole file in memory, else the window
	 * (kept in locals, which the callback cannot alias, rather than reread from *pd) */
	const uint8_t *have = pd->mem;
	uint64_t have_off = 0, have_end = pd->mem ? end : 0;
	/* One event, whose samples the sink takes (a pipe-mode file may add events as it goes):
	 * runs of its samples take the loop below, which compares each header with the one such a
	 * sample has (type SAMPLE, the layout's size; misc varies) and does nothing else. */
	const struct pb_sample_layout *one = NULL;
	if (sink && !pd->pipe && pd->nevents == 1 && pd->events[0].layout.ip_at &&
	    !(pd->events[0].layout.sample_type & sink->exclude))
		one = &pd->events[0].layout;

	while (pos < end) {
		if (one && pos >= have_off && pos < have_end) {
			const uint64_t want = PERF_RECORD_SAMPLE | (uint64_t)one->size << 48;
			const uint8_t *q = have + (pos - have_off);
			const uint8_t *stop = have + (have_end - have_off); /* have_end <= end */
			uint64_t n = 0;
			int rc = 0;
			while ((size_t)(stop - q) >= one->size) {
				uint64_t header, ip;
				uint32_t pid = 0;
				memcpy(&header, q, 8);
				if ((header & UINT64_C(0xffff0000ffffffff)) != want)
					break;
				memcpy(&ip, q + one->ip_at, 8);
				if (one->tid_at)
					memcpy(&pid, q + one->tid_at, 4);
				n++;
				rc = sink->fn(ctx, 0, ip, pid, err);
				if (rc)
					break;
				q += one->size;
			}
			stats->records += n;
			stats->by_type[PERF_RECORD_SAMPLE] += n;
			stats->samples += n;
			pd->events[0].samples += n;
			if (rc)
				return rc;
			pos += n * one->size;
			if (pos >= end)
				break;
		}
		if (end - pos < sizeof(struct perf_event_header))
			return bad(err, "%" PRIu64 " stray bytes at the end of the data section "
				   "(offset %" PRIu64 "): the recording was cut short", end - pos, pos);
		const uint64_t avail = end - pos;
		if (pos < have_off || pos + sizeof(struct perf_event_header) > have_end) {
			if (window_fill(pd, pos, sizeof(struct perf_event_header), end, err))
				return -1;
			have = pd->window;
			have_off = pd->win_off;
			have_end = pd->win_off + pd->win_len;
		}
		const uint8_t *p = have + (pos - have_off);
		struct perf_event_header h;
		memcpy(&h, p, sizeof h);
		if (h.size < sizeof h)
			return bad(err, "record at offset %" PRIu64 " has size %u, less than its own "
				   "header: the data section is corrupt", pos, h.size);
		if (h.size > avail)
			return bad(err, "record at offset %" PRIu64 " (type %u, %u bytes) runs past the "
				   "end of the data section: the recording was cut short", pos, h.type,
				   h.size);
		if (pos + h.size > have_end) {
			if (window_fill(pd, pos, h.size, end, err))
				return -1;
			have = pd->window;
			have_off = pd->win_off;
			have_end = pd->win_off + pd->win_len;
			p = have + (pos - have_off);
		}
		stats->records++;
		stats->by_type[h.type < PB_PERF_RECORD_USER_TYPE_MAX ? h.type
								     : PB_PERF_RECORD_USER_TYPE_MAX - 1]++;
		if (sink && h.type == PERF_RECORD_SAMPLE) {
			int sev = record_event(pd, p, h.size, h.type);
			const struct pb_perfdata_event *ev = sev >= 0 ? &pd->events[sev] : NULL;
			/* the layout's size, so the IP and pid are inside the record (which
			 * pos + h.size <= have_end keeps inside the buffer) */
			if (ev && ev->layout.ip_at && h.size == ev->layout.size &&
			    !(ev->layout.sample_type & sink->exclude)) {
				uint64_t ip;
				uint32_t pid = 0;
				memcpy(&ip, p + ev->layout.ip_at, 8);
				if (ev->layout.tid_at)
					memcpy(&pid, p + ev->layout.tid_at, 4);
				stats->samples++;
				pd->events[sev].samples++;
				int src = sink->fn(ctx, sev, ip, pid, err);
				if (src)
					return src;
				pos += h.size;
				continue;
			}
		}
		int event = -1;
		uint64_t extra = 0;
		int rc;
		if (h.type >= PB_PERF_RECORD_USER_TYPE_START) {
			if (h.type == PB_PERF_RECORD_COMPRESSED)
				return bad(err, "compressed records (perf record -z) at offset %" PRIu64
					   ", which pesbench does not decompress; record without -z",
					   pos);
			if (trailing_bytes(h.type, p, h.size, &extra))
				return bad(err, "user record of type %u at offset %" PRIu64
					   " is too short", h.type, pos);
			if (extra > end - pos - h.size)
				return bad(err, "the data of the record of type %u at offset %" PRIu64
					   " runs past the data section", h.type, pos);
			stats->user_records++;
			rec_fast_type = UINT64_MAX;
			rc = 0;
			if (h.type == PB_PERF_RECORD_EVENT_UPDATE)
				event_update(pd, p, h.size);
			else if (pd->pipe && pos >= pd->prescan_end &&
				 h.type == PB_PERF_RECORD_HEADER_ATTR)
				rc = pipe_attr(pd, p, h.size, pos, err);
			else if (pd->pipe && pos >= pd->prescan_end &&
				 h.type == PB_PERF_RECORD_HEADER_FEATURE)
				rc = pipe_feature(pd, p, h.size, pos, err);
			if (rc)
				return rc;
			rc = unparsed(&rec, &h);
		} else {
			event = record_event(pd, p, h.size, h.type);
			const struct pb_perfdata_event *ev = &pd->events[event >= 0 ? event : 0];
			const struct pb_record_format *fmt = &ev->fmt;
			bool fast = event >= 0 && h.type == PERF_RECORD_SAMPLE &&
				    pb_record_parse_fixed_sample(&ev->layout, p, h.size, &rec,
								 rec_fast_type ==
									 ev->layout.sample_type);
			rec_fast_type = fast ? ev->layout.sample_type : UINT64_MAX;
			if (fast) {
				rc = PB_PARSE_OK;
			} else if (event < 0 && h.type == PERF_RECORD_SAMPLE) {
				rc = unparsed(&rec, &h);
			} else {
				rc = pb_record_parse(fmt, p, h.size, &rec);
				if (rc < 0)
					return bad(err, "record at offset %" PRIu64 " (%s, %u bytes) does "
						   "not parse: %s", pos, pb_record_type_name(h.type),
						   h.size, pb_parse_status_text(rc));
			}
			if (rc == PB_PARSE_UNKNOWN && h.type != PERF_RECORD_SAMPLE)
				stats->unknown++;
			count_record(pd, event, &rec, stats);
		}
		if (fn) {
			rc = fn(ctx, event, &rec, p, h.size, err);
			if (rc)
				return rc;
		}
		pos += h.size + extra;
	}
	return 0;
}
