/* Reading perf.data: every offset and size in the file is checked against the file's length
 * before it is used, and the data section is streamed through a fixed buffer so a file of
 * millions of samples costs the memory of one window, not of the file. Records are decoded
 * where read(2) put them: the only bytes copied twice are those of a record that straddles
 * the end of a read. */
#include "perfdata/perfdata.h"
#include "perfdata/perfdata_internal.h"

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

int pb_pd_bad(struct pb_error *err, const char *what, ...)
{
	char msg[400];
	va_list ap;
	va_start(ap, what);
	vsnprintf(msg, sizeof msg, what, ap);
	va_end(ap);
	return pb_fail(err, PB_EXIT_BAD_FILE, 0, "perf.data: %s", msg);
}

/* Reads len bytes at off; fails when they are not all inside the file. */
int pb_pd_read_at(const struct pb_perfdata *pd, uint64_t off, void *dst, size_t len,
		   const char *what, struct pb_error *err)
{
	if (off > pd->file_size || len > pd->file_size - off)
		return pb_pd_bad(err,
				 "%s (%zu bytes at offset %" PRIu64
				 ") lies past the end of the %" PRIu64
				 "-byte file: the file is truncated or corrupt",
				 what, len, off, pd->file_size);
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
				       off + done,
				       n < 0 ? strerror(errno) : "unexpected end of file");
		done += (size_t)n;
	}
	return 0;
}

bool pb_pd_section_inside(const struct pb_perfdata *pd, const struct section *s)
{
	return s->offset <= pd->file_size && s->size <= pd->file_size - s->offset;
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
	return id_pos(st, 0,
		      PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR);
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
			return pb_pd_bad(
				err,
				"events 0 and %zu put the sample id in different places "
				"(sample_type 0x%llx vs 0x%llx): samples cannot be told apart",
				i, (unsigned long long)st0, (unsigned long long)st);
	}
	return 0;
}

/* Appends an event: alen bytes of attr (zero-extended or cut to this build's struct) and its
 * ids (unaligned bytes). The caller re-indexes the ids. */
static int add_event(struct pb_perfdata *pd, const uint8_t *attr, size_t alen,
		     const uint8_t *ids, size_t nids, struct pb_error *err)
{
	if (pd->nevents == PB_PERFDATA_MAX_EVENTS)
		return pb_pd_bad(err, "more than %d events: more than pesbench reads",
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
	snprintf(ev->name, sizeof ev->name, "type%u/config=0x%llx", ev->attr.type,
		 (unsigned long long)ev->attr.config);
	return 0;
}

static int read_attrs(struct pb_perfdata *pd, uint64_t attr_size, struct pb_error *err)
{
	if (attr_size < ATTR_SIZE_VER0 + 16 || attr_size > MAX_ATTR_ENTRY)
		return pb_pd_bad(err, "attr entries of %" PRIu64 " bytes: not a size perf writes",
				 attr_size);
	if (!pb_pd_section_inside(pd, &pd->attrs))
		return pb_pd_bad(err,
				 "the attrs section lies past the end of the file (truncated?)");
	if (pd->attrs.size % attr_size != 0 || pd->attrs.size == 0)
		return pb_pd_bad(err,
				 "the attrs section (%" PRIu64
				 " bytes) is not a whole number of %" PRIu64 "-byte attrs",
				 pd->attrs.size, attr_size);
	uint64_t n = pd->attrs.size / attr_size;
	if (n > PB_PERFDATA_MAX_EVENTS)
		return pb_pd_bad(err, "%" PRIu64 " events: more than pesbench reads (%d)", n,
			   PB_PERFDATA_MAX_EVENTS);
	uint8_t entry[MAX_ATTR_ENTRY];
	for (uint64_t i = 0; i < n; i++) {
		if (pb_pd_read_at(pd, pd->attrs.offset + i * attr_size, entry, attr_size, "an attr",
				  err))
			return -1;
		size_t alen = attr_size - 16;
		struct section ids;
		memcpy(&ids, entry + alen, sizeof ids);
		if (!pb_pd_section_inside(pd, &ids) || ids.size % 8)
			return pb_pd_bad(err,
					 "the id list of event %" PRIu64
					 " is outside the file or not a "
					 "list of u64 ids",
					 i);
		uint8_t *idbuf = malloc(ids.size ? ids.size : 1);
		if (!idbuf)
			return pb_fail(err, PB_EXIT_FAILURE, ENOMEM, "perf.data: out of memory");
		int rc = pb_pd_read_at(pd, ids.offset, idbuf, ids.size, "an id list", err);
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
int pb_pd_pipe_attr(struct pb_perfdata *pd, const uint8_t *rec, size_t size, uint64_t pos,
		     struct pb_error *err)
{
	uint32_t asize;
	if (size < 8 + ATTR_SIZE_VER0)
		return pb_pd_bad(err, "HEADER_ATTR record at offset %" PRIu64 " is too short", pos);
	memcpy(&asize, rec + 8 + offsetof(struct perf_event_attr, size), 4);
	if (asize == 0)
		asize = ATTR_SIZE_VER0;
	if (asize < ATTR_SIZE_VER0 || asize > size - 8 || (size - 8 - asize) % 8)
		return pb_pd_bad(err,
				 "HEADER_ATTR record at offset %" PRIu64 " has an attr of %u bytes "
				 "that does not fit its %zu bytes",
				 pos, asize, size);
	if (add_event(pd, rec + 8, asize, rec + 8 + asize, (size - 8 - asize) / 8, err))
		return -1;
	return index_ids(pd, err);
}

/* PERF_RECORD_EVENT_UPDATE of type NAME (2): u64 type, u64 id, then the name. */
void pb_pd_event_update(struct pb_perfdata *pd, const uint8_t *rec, size_t size)
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

int pb_pd_pipe_feature(struct pb_perfdata *pd, const uint8_t *rec, size_t size, uint64_t pos,
			struct pb_error *err)
{
	uint64_t bit;
	if (size < 16)
		return pb_pd_bad(err, "HEADER_FEATURE record at offset %" PRIu64 " is too short",
				 pos);
	memcpy(&bit, rec + 8, 8);
	if (bit >= PB_FEAT_BITS)
		return 0;
	pd->facts.features[bit / 64] |= UINT64_C(1) << (bit % 64);
	if (bit == PB_FEAT_COMPRESSED)
		return pb_pd_bad(
			err, "the data is zstd-compressed (perf record -z), which pesbench does "
			     "not decompress; record without -z");
	if (!pb_pd_feature_wanted((unsigned)bit))
		return 0;
	return pb_pd_parse_feature_buf(pd, (unsigned)bit, rec + 16, size - 16, pos, err);
}


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
			rc = pb_pd_bad(err,
				       "%" PRIu64 " stray bytes at offset %" PRIu64
				       ": the recording was "
				       "cut short",
				       end - pos, pos);
			break;
		}
		if (pb_pd_read_at(pd, pos, &h, sizeof h, "a record header", err)) {
			rc = -1;
			break;
		}
		if (h.type < PB_PERF_RECORD_USER_TYPE_START)
			break;
		if (h.size < sizeof h || h.size > end - pos) {
			rc = pb_pd_bad(err,
				       "record at offset %" PRIu64
				       " (type %u, %u bytes) is corrupt or "
				       "runs past the end of the file",
				       pos, h.type, h.size);
			break;
		}
		uint64_t extra = 0;
		if (pb_pd_read_at(pd, pos, rec, h.size, "a record", err) ||
		    pb_pd_trailing_bytes(h.type, rec, h.size, &extra)) {
			rc = pb_fail(err, PB_EXIT_BAD_FILE, 0,
				     "perf.data: record at offset %" PRIu64 " is too short", pos);
			break;
		}
		if (h.type == PB_PERF_RECORD_HEADER_ATTR)
			rc = pb_pd_pipe_attr(pd, rec, h.size, pos, err);
		else if (h.type == PB_PERF_RECORD_HEADER_FEATURE)
			rc = pb_pd_pipe_feature(pd, rec, h.size, pos, err);
		else if (h.type == PB_PERF_RECORD_EVENT_UPDATE)
			pb_pd_event_update(pd, rec, h.size);
		if (extra > end - pos - h.size)
			rc = pb_pd_bad(err,
				       "the data of the record at offset %" PRIu64
				       " runs past the end",
				       pos);
		pos += h.size + extra;
	}
	free(rec);
	pd->prescan_end = pos;
	if (!rc && pd->nevents == 0)
		rc = pb_pd_bad(
			err, "pipe-mode file without a HEADER_ATTR record before its first kernel "
			     "record: no events to read samples with");
	return rc;
}

static int open_common(struct pb_perfdata *pd, struct pb_error *err)
{
	uint8_t h[FILE_HEADER_SIZE];
	uint64_t magic = 0, size = 0;
	if (pd->file_size < 16)
		return pb_pd_bad(err, "%" PRIu64 " bytes: too short for a perf.data header",
				 pd->file_size);
	if (pb_pd_read_at(pd, 0, h, 16, "the header", err))
		return -1;
	memcpy(&magic, h, 8);
	memcpy(&size, h + 8, 8);
	if (magic == PERF_MAGIC2_SWAPPED)
		return pb_pd_bad(err,
				 "the file was written on a machine of the other byte order, which "
				 "pesbench does not read");
	if (!memcmp(h, "PERFFILE", 8))
		return pb_pd_bad(err,
				 "version 1 (\"PERFFILE\") format from a perf older than 2.6.35; "
				 "pesbench reads version 2 only");
	if (magic != PERF_MAGIC2)
		return pb_pd_bad(err, "no PERFILE2 magic: not a perf.data file");
	if (size == PIPE_HEADER_SIZE) {
		pd->pipe = true;
		pd->data.offset = PIPE_HEADER_SIZE;
		pd->data.size = pd->file_size - PIPE_HEADER_SIZE;
		return pipe_prescan(pd, err);
	}
	if (size < FILE_HEADER_SIZE)
		return pb_pd_bad(
			err, "header of %" PRIu64 " bytes: older than any perf.data pesbench reads",
			size);
	if (pb_pd_read_at(pd, 0, h, FILE_HEADER_SIZE, "the header", err))
		return -1;
	uint64_t attr_size;
	memcpy(&attr_size, h + 16, 8);
	memcpy(&pd->attrs, h + 24, 16);
	memcpy(&pd->data, h + 40, 16);
	memcpy(pd->facts.features, h + 72, sizeof pd->facts.features);
	if (!pb_pd_section_inside(pd, &pd->data))
		return pb_pd_bad(err,
				 "the data section (%" PRIu64 " bytes at %" PRIu64
				 ") runs past the "
				 "end of the %" PRIu64 "-byte file: the recording was cut short",
				 pd->data.size, pd->data.offset, pd->file_size);
	if (read_attrs(pd, attr_size, err))
		return -1;
	if (pb_perfdata_has_feature(pd, PB_FEAT_COMPRESSED))
		return pb_pd_bad(err, "the data section is zstd-compressed (perf record -z), which "
			   "pesbench does not decompress; record without -z");

	/* Feature sections: a table right after the data section, one entry per bit set. */
	uint64_t table = pd->data.offset + pd->data.size;
	unsigned k = 0;
	for (unsigned bit = 1; bit < PB_FEAT_BITS; bit++) {
		if (!pb_perfdata_has_feature(pd, bit))
			continue;
		struct section s;
		if (pb_pd_read_at(pd, table + (uint64_t)k * sizeof s, &s, sizeof s,
				  "the feature table", err))
			return -1;
		k++;
		if (!pb_pd_section_inside(pd, &s))
			return pb_pd_bad(
				err,
				"feature section %u (%s) lies past the end of the file: the "
				"file is truncated or corrupt",
				bit, pb_pd_feature_name(bit));
		if (pb_pd_parse_feature(pd, bit, &s, err))
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
int pb_pd_back_to_opened(struct pb_perfdata *pd, struct pb_error *err)
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
			return pb_fail(err, PB_EXIT_BAD_FILE, e,
				       "-: cannot read standard input: %s", strerror(e));
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
		return pb_fail(
			err, PB_EXIT_BAD_FILE, 0,
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
		pb_error_prefix(err, "%s: ", strcmp(path, "-") ? path : "standard input");
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
