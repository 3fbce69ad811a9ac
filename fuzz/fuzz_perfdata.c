/* Fuzzes the perf.data reader on arbitrary bytes through the memory API: the header, attrs, ids
 * and feature sections at open, then the data-section walk. Every pointer handed to the
 * callback (record bytes, sample raw payload, file names) is read in full so AddressSanitizer
 * sees any that reach outside the input; IBS payloads of events the file maps to ibs_op /
 * ibs_fetch go through the decoder as `pesbench perfdata --dump` sends them. */
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

static int on_record(void *ctx, int event, const struct pb_record *rec, const uint8_t *bytes,
		     size_t len, struct pb_error *err)
{
	struct pb_perfdata *pd = ctx;
	(void)err;
	touch(bytes, len);
	if (rec->type == PERF_RECORD_SAMPLE && event >= 0) {
		const struct pb_sample *s = &rec->u.sample;
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
		struct pb_perfdata_stats st;
		(void)pb_perfdata_for_each(pd, on_record, pd, &st, &err);
		pb_perfdata_close(pd);
	}
	free(copy);
	return 0;
}
