/* The record parser of the public API (include/pesbench/record.h) over ring/record.c. */
#include "api/api.h"

#include <stdlib.h>
#include <string.h>

struct pesbench_record_format *pesbench_record_format__new(const struct perf_event_attr *attr)
{
	struct pesbench_record_format *fmt = calloc(1, sizeof(*fmt));
	if (fmt)
		pb_record_format_from_attr(&fmt->fmt, attr);
	return fmt;
}

void pesbench_record_format__delete(struct pesbench_record_format *fmt)
{
	free(fmt);
}

struct pesbench_record *pesbench_record__new(void)
{
	struct pesbench_record *rec = calloc(1, sizeof(*rec));
	if (rec)
		rec->rec = &rec->storage;
	return rec;
}

void pesbench_record__delete(struct pesbench_record *rec)
{
	free(rec);
}

int pesbench_record__parse(struct pesbench_record *rec, const struct pesbench_record_format *fmt,
			   const void *buf, size_t len, struct pesbench_error *err)
{
	struct pb_error e;
	rec->rec = &rec->storage;
	rec->bytes = NULL;
	rec->len = 0;
	int status = pb_record_parse(&fmt->fmt, buf, len, &rec->storage);
	if (status < 0) {
		pb_fail(&e, PB_EXIT_BAD_FILE, 0, "malformed perf record of %zu bytes: %s", len,
			pb_parse_status_text(status));
		return pb_api_error(err, &e);
	}
	rec->bytes = buf;
	rec->len = rec->storage.size;
	return status == PB_PARSE_UNKNOWN ? 1 : 0;
}

uint32_t pesbench_record__type(const struct pesbench_record *rec)
{
	return rec->rec->type;
}

uint16_t pesbench_record__misc(const struct pesbench_record *rec)
{
	return rec->rec->misc;
}

uint16_t pesbench_record__size(const struct pesbench_record *rec)
{
	return rec->rec->size;
}

const char *pesbench_record_type__name(uint32_t type)
{
	return pb_record_type_name(type);
}

const void *pesbench_record__bytes(const struct pesbench_record *rec, size_t *len)
{
	if (len)
		*len = rec->bytes ? rec->len : 0;
	return rec->bytes;
}

static int sample_field(const struct pb_sample *s, enum pesbench_field field, uint64_t *v)
{
	uint64_t st = s->sample_type;
	switch (field) {
	case PESBENCH_FIELD_IP:
		*v = s->ip;
		return st & PERF_SAMPLE_IP ? 0 : -1;
	case PESBENCH_FIELD_PID:
		*v = s->pid;
		return st & PERF_SAMPLE_TID ? 0 : -1;
	case PESBENCH_FIELD_TID:
		*v = s->tid;
		return st & PERF_SAMPLE_TID ? 0 : -1;
	case PESBENCH_FIELD_TIME:
		*v = s->time;
		return st & PERF_SAMPLE_TIME ? 0 : -1;
	case PESBENCH_FIELD_ADDR:
		*v = s->addr;
		return st & PERF_SAMPLE_ADDR ? 0 : -1;
	case PESBENCH_FIELD_ID:
		*v = st & PERF_SAMPLE_IDENTIFIER ? s->identifier : s->id;
		return st & (PERF_SAMPLE_ID | PERF_SAMPLE_IDENTIFIER) ? 0 : -1;
	case PESBENCH_FIELD_STREAM_ID:
		*v = s->stream_id;
		return st & PERF_SAMPLE_STREAM_ID ? 0 : -1;
	case PESBENCH_FIELD_CPU:
		*v = s->cpu;
		return st & PERF_SAMPLE_CPU ? 0 : -1;
	case PESBENCH_FIELD_PERIOD:
		*v = s->period;
		return st & PERF_SAMPLE_PERIOD ? 0 : -1;
	case PESBENCH_FIELD_WEIGHT:
		*v = s->weight;
		return st & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT) ? 0 : -1;
	case PESBENCH_FIELD_DATA_SRC:
		*v = s->data_src;
		return st & PERF_SAMPLE_DATA_SRC ? 0 : -1;
	case PESBENCH_FIELD_PHYS_ADDR:
		*v = s->phys_addr;
		return st & PERF_SAMPLE_PHYS_ADDR ? 0 : -1;
	default:
		return -1;
	}
}

static int sample_id_field(const struct pb_sample_id *id, enum pesbench_field field, uint64_t *v)
{
	if (!id->present)
		return -1;
	switch (field) {
	case PESBENCH_FIELD_PID: *v = id->pid; return 0;
	case PESBENCH_FIELD_TID: *v = id->tid; return 0;
	case PESBENCH_FIELD_TIME: *v = id->time; return 0;
	case PESBENCH_FIELD_ID: *v = id->identifier ? id->identifier : id->id; return 0;
	case PESBENCH_FIELD_STREAM_ID: *v = id->stream_id; return 0;
	case PESBENCH_FIELD_CPU: *v = id->cpu; return 0;
	default: return -1;
	}
}

int pesbench_record__field(const struct pesbench_record *rec, enum pesbench_field field,
			   uint64_t *value)
{
	const struct pb_record *r = rec->rec;
	uint64_t v = 0;
	int found = -1;

	switch (r->type) {
	case PERF_RECORD_SAMPLE:
		found = sample_field(&r->u.sample, field, &v);
		break;
	case PERF_RECORD_LOST:
		if (field == PESBENCH_FIELD_ID)
			v = r->u.lost.id, found = 0;
		else if (field == PESBENCH_FIELD_LOST)
			v = r->u.lost.lost, found = 0;
		break;
	case PERF_RECORD_LOST_SAMPLES:
		if (field == PESBENCH_FIELD_LOST)
			v = r->u.lost_samples.lost, found = 0;
		break;
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		found = 0;
		switch (field) {
		case PESBENCH_FIELD_PID: v = r->u.mmap.pid; break;
		case PESBENCH_FIELD_TID: v = r->u.mmap.tid; break;
		case PESBENCH_FIELD_ADDR: v = r->u.mmap.addr; break;
		case PESBENCH_FIELD_LEN: v = r->u.mmap.len; break;
		case PESBENCH_FIELD_PGOFF: v = r->u.mmap.pgoff; break;
		default: found = -1; break;
		}
		break;
	case PERF_RECORD_COMM:
		if (field == PESBENCH_FIELD_PID)
			v = r->u.comm.pid, found = 0;
		else if (field == PESBENCH_FIELD_TID)
			v = r->u.comm.tid, found = 0;
		break;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		if (field == PESBENCH_FIELD_PID)
			v = r->u.task.pid, found = 0;
		else if (field == PESBENCH_FIELD_TID)
			v = r->u.task.tid, found = 0;
		break;
	case PERF_RECORD_AUX:
		found = 0;
		switch (field) {
		case PESBENCH_FIELD_AUX_OFFSET: v = r->u.aux.aux_offset; break;
		case PESBENCH_FIELD_AUX_SIZE: v = r->u.aux.aux_size; break;
		case PESBENCH_FIELD_AUX_FLAGS: v = r->u.aux.flags; break;
		default: found = -1; break;
		}
		break;
	default:
		break;
	}
	/* A body field wins over the trailer's copy of it (a COMM's pid is the process named). */
	if (found && r->type != PERF_RECORD_SAMPLE)
		found = sample_id_field(&r->sample_id, field, &v);
	if (!found)
		*value = v;
	return found;
}

const void *pesbench_record__raw(const struct pesbench_record *rec, uint32_t *size)
{
	const struct pb_record *r = rec->rec;
	bool has = r->type == PERF_RECORD_SAMPLE && (r->u.sample.sample_type & PERF_SAMPLE_RAW);
	if (size)
		*size = has ? r->u.sample.raw_size : 0;
	return has ? r->u.sample.raw : NULL;
}

uint64_t pesbench_record__callchain_nr(const struct pesbench_record *rec)
{
	const struct pb_record *r = rec->rec;
	if (r->type != PERF_RECORD_SAMPLE || !(r->u.sample.sample_type & PERF_SAMPLE_CALLCHAIN))
		return 0;
	return r->u.sample.callchain_nr;
}

uint64_t pesbench_record__callchain_ip(const struct pesbench_record *rec, uint64_t i)
{
	uint64_t ip = 0;
	if (i < pesbench_record__callchain_nr(rec))
		memcpy(&ip, (const uint8_t *)rec->rec->u.sample.callchain + i * 8, sizeof ip); /* unaligned in perf.data */
	return ip;
}

const char *pesbench_record__string(const struct pesbench_record *rec)
{
	const struct pb_record *r = rec->rec;
	if (r->type == PERF_RECORD_COMM)
		return r->u.comm.comm;
	if (r->type == PERF_RECORD_MMAP || r->type == PERF_RECORD_MMAP2)
		return r->u.mmap.filename;
	return NULL;
}
