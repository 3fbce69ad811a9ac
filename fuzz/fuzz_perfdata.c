/* Fuzzes the perf.data reader on arbitrary bytes through the memory API: the header, attrs, ids
 * and feature sections at open, then the data-section walk. Every pointer handed to the
 * callback (record bytes, sample raw payload, file names) is read in full so AddressSanitizer
 * sees any that reach outside the input; IBS payloads of events the file maps to ibs_op /
 * ibs_fetch go through the decoder as `pesbench perfdata --dump` sends them. The walk runs a
 * second time on the same reader with the IP sink (pb_perfdata_for_each_ip, as `pesbench
 * perfdata --histogram` walks): it must end the same way, count the same, see the same
 * samples' IPs, pids and times and the same events (a pipe-mode file adds them as it goes)
 * at every record, and leave the reader as the first walk did. */
#include "facilities/ibs_raw.h"
#include "perfdata/perfdata.h"

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

/* What a walk saw of its samples and other records, to compare the two walks. */
struct seen {
	struct pb_perfdata *pd;
	uint64_t samples, ip_hash, others_hash;
};

static uint64_t fold(uint64_t h, uint64_t v)
{
	return (h ^ v) * UINT64_C(0x100000001b3);
}

static void see(struct seen *w, int event, uint64_t ip, uint32_t pid, uint64_t time)
{
	w->samples++;
	w->ip_hash = fold(fold(w->ip_hash, ip ^ ((uint64_t)pid << 32) ^ (uint64_t)(unsigned)event),
			  time);
}

static uint64_t fold_string(uint64_t h, const char *s)
{
	for (; *s; s++)
		h = fold(h, (uint8_t)*s);
	return fold(h, 0);
}

/* Everything the reader tells about the file, its events and their counts. */
static uint64_t reader_state(struct pb_perfdata *pd)
{
	uint64_t h = fold(0xcbf29ce484222325, pb_perfdata_nevents(pd));
	for (size_t i = 0; i < pb_perfdata_nevents(pd); i++) {
		const struct pb_perfdata_event *ev = pb_perfdata_event(pd, i);
		h = fold_string(h, ev->name);
		h = fold(h, ev->attr.type ^ ev->attr.config ^ ev->attr.sample_type);
		for (size_t k = 0; k < ev->nids; k++)
			h = fold(h, ev->ids[k]);
		h = fold(fold(fold(h, ev->samples), ev->lost), ev->lost_samples);
		h = fold(fold(h, ev->throttles), ev->unthrottles);
	}
	for (unsigned bit = 0; bit < PB_FEAT_BITS; bit++)
		if (pb_perfdata_has_feature(pd, bit))
			h = fold(h, bit);
	h = fold_string(h, pb_perfdata_cpuid(pd));
	h = fold_string(h, pb_perfdata_arch(pd));
	h = fold_string(h, pb_perfdata_hostname(pd));
	h = fold_string(h, pb_perfdata_osrelease(pd));
	h = fold_string(h, pb_perfdata_perf_version(pd));
	uint32_t avail = 0, online = 0;
	if (pb_perfdata_nr_cpus(pd, &avail, &online))
		h = fold(fold(h, avail), online);
	for (size_t i = 0; i < pb_perfdata_npmus(pd); i++) {
		const struct pb_perfdata_pmu *pmu = pb_perfdata_pmu(pd, i);
		h = fold_string(fold(h, pmu->type), pmu->name);
		const char *cap = pb_perfdata_pmu_cap(pd, pmu->name, "max_precise");
		h = fold_string(h, cap ? cap : "-");
	}
	return h;
}

static int on_ip(void *ctx, int event, uint64_t ip, uint32_t pid, uint64_t time,
		 struct pb_error *err)
{
	(void)err;
	see(ctx, event, ip, pid, time);
	return 0;
}

static int on_record(void *ctx, int event, const struct pb_record *rec, const uint8_t *bytes,
		     size_t len, struct pb_error *err)
{
	struct seen *w = ctx;
	struct pb_perfdata *pd = w->pd;
	(void)err;
	touch(bytes, len);
	if (rec->type != PERF_RECORD_SAMPLE)
		w->others_hash = fold(fold(fold(w->others_hash, rec->type), (unsigned)event),
				      pb_perfdata_nevents(pd));
	if (rec->type == PERF_RECORD_SAMPLE && event >= 0) {
		const struct pb_sample *s = &rec->u.sample;
		if (s->sample_type & PERF_SAMPLE_IP)
			see(w, event, s->ip, s->sample_type & PERF_SAMPLE_TID ? s->pid : 0,
			    s->sample_type & PERF_SAMPLE_TIME ? s->time : PB_PERFDATA_NO_TIME);
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
		uint64_t after_full = reader_state(pd);
		struct seen lean = {.pd = pd};
		const struct pb_perfdata_ip_sink ip_sink = {.fn = on_ip};
		int rc_ip = pb_perfdata_for_each_ip(pd, on_record, &ip_sink, &lean, &st_ip, &err);
		if (rc != rc_ip || full.samples != lean.samples || full.ip_hash != lean.ip_hash ||
		    memcmp(&st, &st_ip, sizeof st))
			__builtin_trap(); /* the second walk saw other samples than the first */
		if (full.others_hash != lean.others_hash || after_full != reader_state(pd))
			__builtin_trap(); /* it saw other events, or left the reader otherwise */
		pb_perfdata_close(pd);
	}
	free(copy);
	return 0;
}
