/* Fuzzes the perf.data reader on arbitrary bytes through the memory API: the header, attrs, ids
 * and feature sections at open, then the data-section walk. Every pointer handed to the
 * callback (record bytes, sample raw payload, file names) is read in full so AddressSanitizer
 * sees any that reach outside the input; IBS payloads of events the file maps to ibs_op /
 * ibs_fetch go through the decoder as `pesbench perfdata --dump` sends them. The walk runs a
 * second time with the IP sink (pb_perfdata_for_each_ip, as `pesbench perfdata --histogram`
 * walks) on a reader opened afresh (a second walk of a pipe-mode file on the same reader adds
 * its in-stream attrs again): it must end the same way, count the same, and see the same
 * samples' IPs and pids. */
#include "facilities/ibs_raw.h"
#include "io/perfdata.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static volatile uint64_t sink;

static void touch(const void *p, size_t n)
{
	const volatile uint8_t *b = p;
	uint64_t s = 0;
	for (size_t i = 0; i < n; i++)
		s += b[i];
	sink += s;
}

/* What a walk saw of its samples, to compare the two walks. */
struct seen {
	struct pb_perfdata *pd;
	uint64_t samples, ip_hash;
};

static void see(struct seen *w, int event, uint64_t ip, uint32_t pid)
{
	w->samples++;
	w->ip_hash = (w->ip_hash ^ ip ^ ((uint64_t)pid << 32) ^ (uint64_t)(unsigned)event) *
		     UINT64_C(0x100000001b3);
}

static int on_ip(void *ctx, int event, uint64_t ip, uint32_t pid, struct pb_error *err)
{
	(void)err;
	see(ctx, event, ip, pid);
	return 0;
}

static int on_record(void *ctx, int event, const struct pb_record *rec, const uint8_t *bytes,
		     size_t len, struct pb_error *err)
{
	struct seen *w = ctx;
	struct pb_perfdata *pd = w->pd;
	(void)err;
	touch(bytes, len);
	if (rec->type == PERF_RECORD_SAMPLE && event >= 0) {
		const struct pb_sample *s = &rec->u.sample;
		if (s->sample_type & PERF_SAMPLE_IP)
			see(w, event, s->ip, s->sample_type & PERF_SAMPLE_TID ? s->pid : 0);
		if (s->raw)
			touch(s->raw, s->raw_size);
		enum pb_ibs_kind kind;
		struct pb_ibs_cpu cpu;
		if (s->raw && pb_perfdata_ibs_event(pd, (size_t)event, &kind, &cpu)) {
			struct pb_ibs_sample ibs;
			struct pb_error e;
			if (!pb_ibs_decode(s->raw, s->raw_size, kind, &cpu, &ibs, &e))
				sink += ibs.nregs;
		}
	} else if ((rec->type == PERF_RECORD_MMAP || rec->type == PERF_RECORD_MMAP2) &&
		   rec->u.mmap.filename) {
		touch(rec->u.mmap.filename, strlen(rec->u.mmap.filename));
	} else if (rec->type == PERF_RECORD_COMM && rec->u.comm.comm) {
		touch(rec->u.comm.comm, strlen(rec->u.comm.comm));
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* An exact-size copy so a read one byte past the input is caught. */
	uint8_t *copy = malloc(size ? size : 1);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	struct pb_perfdata *pd;
	struct pb_error err;
	if (pb_perfdata_open_memory(copy, size, &pd, &err) == 0) {
		for (size_t i = 0; i < pb_perfdata_nevents(pd); i++)
			touch(pb_perfdata_event(pd, i)->name, strlen(pb_perfdata_event(pd, i)->name));
		touch(pb_perfdata_cpuid(pd), strlen(pb_perfdata_cpuid(pd)));
		struct pb_perfdata_stats st, st_ip;
		struct seen full = {.pd = pd};
		int rc = pb_perfdata_for_each(pd, on_record, &full, &st, &err);
		pb_perfdata_close(pd);
		struct pb_perfdata *again;
		if (pb_perfdata_open_memory(copy, size, &again, &err))
			__builtin_trap(); /* opened once, it must open again */
		struct seen lean = {.pd = again};
		const struct pb_perfdata_ip_sink ip_sink = {.fn = on_ip};
		int rc_ip = pb_perfdata_for_each_ip(again, on_record, &ip_sink, &lean, &st_ip, &err);
		if (rc != rc_ip || full.samples != lean.samples || full.ip_hash != lean.ip_hash ||
		    memcmp(&st, &st_ip, sizeof st))
			__builtin_trap(); /* the IP sink saw other samples than the full decode */
		pb_perfdata_close(again);
	}
	free(copy);
	return 0;
}
