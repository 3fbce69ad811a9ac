/* Streaming perf.data's data section: records decoded where read(2) put them, each handed to
 * the caller with the event it belongs to, and counted per event and per type. */
#include "perfdata/perfdata.h"
#include "perfdata/perfdata_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

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
int pb_pd_trailing_bytes(uint32_t type, const uint8_t *rec, size_t size, uint64_t *extra)
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
		if (pb_pd_read_at(pd, at, pd->window + pd->win_len, (size_t)n, "the data section",
				  err))
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
	if (pb_pd_back_to_opened(pd, err))
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
				uint64_t header, ip, time = PB_PERFDATA_NO_TIME;
				uint32_t pid = 0;
				memcpy(&header, q, 8);
				if ((header & UINT64_C(0xffff0000ffffffff)) != want)
					break;
				memcpy(&ip, q + one->ip_at, 8);
				if (one->tid_at)
					memcpy(&pid, q + one->tid_at, 4);
				if (one->time_at)
					memcpy(&time, q + one->time_at, 8);
				n++;
				rc = sink->fn(ctx, 0, ip, pid, time, err);
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
			return pb_pd_bad(err,
					 "%" PRIu64 " stray bytes at the end of the data section "
					 "(offset %" PRIu64 "): the recording was cut short",
					 end - pos, pos);
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
			return pb_pd_bad(err,
					 "record at offset %" PRIu64
					 " has size %u, less than its own "
					 "header: the data section is corrupt",
					 pos, h.size);
		if (h.size > avail)
			return pb_pd_bad(err,
					 "record at offset %" PRIu64
					 " (type %u, %u bytes) runs past the "
					 "end of the data section: the recording was cut short",
					 pos, h.type, h.size);
		if (pos + h.size > have_end) {
			if (window_fill(pd, pos, h.size, end, err))
				return -1;
			have = pd->window;
			have_off = pd->win_off;
			have_end = pd->win_off + pd->win_len;
			p = have + (pos - have_off);
		}
		stats->records++;
		stats->by_type[h.type < PB_PERF_RECORD_USER_TYPE_MAX
				       ? h.type
				       : PB_PERF_RECORD_USER_TYPE_MAX - 1]++;
		if (sink && h.type == PERF_RECORD_SAMPLE) {
			int sev = record_event(pd, p, h.size, h.type);
			const struct pb_perfdata_event *ev = sev >= 0 ? &pd->events[sev] : NULL;
			/* the layout's size, so the IP, pid and time are inside the record (which
			 * pos + h.size <= have_end keeps inside the buffer) */
			if (ev && ev->layout.ip_at && h.size == ev->layout.size &&
			    !(ev->layout.sample_type & sink->exclude)) {
				uint64_t ip, time = PB_PERFDATA_NO_TIME;
				uint32_t pid = 0;
				memcpy(&ip, p + ev->layout.ip_at, 8);
				if (ev->layout.tid_at)
					memcpy(&pid, p + ev->layout.tid_at, 4);
				if (ev->layout.time_at)
					memcpy(&time, p + ev->layout.time_at, 8);
				stats->samples++;
				pd->events[sev].samples++;
				int src = sink->fn(ctx, sev, ip, pid, time, err);
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
				return pb_pd_bad(
					err,
					"compressed records (perf record -z) at offset %" PRIu64
					", which pesbench does not decompress; record without -z",
					pos);
			if (pb_pd_trailing_bytes(h.type, p, h.size, &extra))
				return pb_pd_bad(err, "user record of type %u at offset %" PRIu64
					   " is too short", h.type, pos);
			if (extra > end - pos - h.size)
				return pb_pd_bad(
					err,
					"the data of the record of type %u at offset %" PRIu64
					" runs past the data section",
					h.type, pos);
			stats->user_records++;
			rec_fast_type = UINT64_MAX;
			rc = 0;
			if (h.type == PB_PERF_RECORD_EVENT_UPDATE)
				pb_pd_event_update(pd, p, h.size);
			else if (pd->pipe && pos >= pd->prescan_end &&
				 h.type == PB_PERF_RECORD_HEADER_ATTR)
				rc = pb_pd_pipe_attr(pd, p, h.size, pos, err);
			else if (pd->pipe && pos >= pd->prescan_end &&
				 h.type == PB_PERF_RECORD_HEADER_FEATURE)
				rc = pb_pd_pipe_feature(pd, p, h.size, pos, err);
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
					return pb_pd_bad(err,
							 "record at offset %" PRIu64
							 " (%s, %u bytes) does "
							 "not parse: %s",
							 pos, pb_record_type_name(h.type), h.size,
							 pb_parse_status_text(rc));
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
