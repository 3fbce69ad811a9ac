/* A perf record built byte by byte, as the kernel lays it out, for tests that feed parsers and
 * readers records no kernel here would write in that order or with those fields. */
#ifndef PB_TEST_REC_WRITER_H
#define PB_TEST_REC_WRITER_H

#include <linux/perf_event.h>
#include <stdint.h>
#include <string.h>

struct rec_writer {
	uint8_t buf[512];
	size_t pos;
};

static inline void w_bytes(struct rec_writer *w, const void *p, size_t n)
{
	memcpy(w->buf + w->pos, p, n);
	w->pos += n;
}

static inline void w_u64(struct rec_writer *w, uint64_t v)
{
	w_bytes(w, &v, 8);
}

static inline void w_u32(struct rec_writer *w, uint32_t v)
{
	w_bytes(w, &v, 4);
}

/* A NUL-terminated string padded to 8 bytes, as MMAP and COMM records hold theirs. */
static inline void w_string(struct rec_writer *w, const char *s)
{
	w_bytes(w, s, strlen(s) + 1);
	while (w->pos % 8)
		w->buf[w->pos++] = 0;
}

/* The header; its size is set by w_size once the record is whole. */
static inline void w_begin(struct rec_writer *w, uint32_t type, uint16_t misc)
{
	struct perf_event_header h = {type, misc, 0};
	w->pos = 0;
	w_bytes(w, &h, 8);
}

static inline size_t w_size(struct rec_writer *w)
{
	uint16_t size = (uint16_t)w->pos;
	memcpy(w->buf + 6, &size, 2);
	return w->pos;
}

#endif
