/* The walk of `pesbench perfdata` (perfdata_summary.h). The per-sample path of on_record is
 * kept short: what only some samples need (a data source, a --dump line, a new IP) is out of
 * line, so the common path saves and restores only the few registers it uses. */
#include "analysis/perfdata_summary.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static bool decoder_listed(const struct pb_pdsum *s, const struct pb_perfdata_decoder *d)
{
	for (size_t i = 0; i < s->ndecoders; i++)
		if (s->decoders[i].decoder == d)
			return true;
	return false;
}

int pb_pdsum_open(struct pb_pdsum *s, struct pb_perfdata *pd,
		  const struct pb_facility *const *facilities, struct pb_error *err)
{
	size_t n = 0;
	s->pd = pd;
	for (const struct pb_facility *const *f = facilities; *f; f++)
		n++;
	s->decoders = calloc(n ? n : 1, sizeof *s->decoders);
	if (!s->decoders)
		return pb_fail(err, PB_EXIT_FAILURE, ENOMEM, "out of memory");
	for (const struct pb_facility *const *f = facilities; *f; f++) {
		const struct pb_perfdata_decoder *d = (*f)->perfdata;
		if (!d || decoder_listed(s, d))
			continue;
		struct pb_error derr = {0};
		void *state = d->open(pd, &derr);
		if (!state && derr.code) {
			*err = derr;
			return -1;
		}
		if (state)
			s->decoders[s->ndecoders++] = (struct pb_pdsum_decoder){d, state};
	}
	return 0;
}

void pb_pdsum_free(struct pb_pdsum *s)
{
	for (size_t i = 0; i < s->ndecoders; i++)
		s->decoders[i].decoder->close(s->decoders[i].state);
	free(s->decoders);
	s->decoders = NULL;
	s->ndecoders = 0;
	pb_histogram_free(&s->hist);
	pb_mem_table_free(&s->mem);
	pb_symbolizer_free(&s->sym);
}

static void dump_sample(struct pb_pdsum *sum, int event, const struct pb_sample *s)
{
	FILE *out = sum->dump_out;
	uint64_t st = s->sample_type;
	fprintf(out, "sample event=%d", event);
	if (st & PERF_SAMPLE_IP)
		fprintf(out, " ip=%#" PRIx64, s->ip);
	if (st & PERF_SAMPLE_TID)
		fprintf(out, " pid=%u tid=%u", s->pid, s->tid);
	if (st & PERF_SAMPLE_TIME)
		fprintf(out, " time=%" PRIu64, s->time);
	if (st & PERF_SAMPLE_ADDR)
		fprintf(out, " addr=%#" PRIx64, s->addr);
	if (st & PERF_SAMPLE_CPU)
		fprintf(out, " cpu=%u", s->cpu);
	if (st & PERF_SAMPLE_PERIOD)
		fprintf(out, " period=%" PRIu64, s->period);
	if (st & PERF_SAMPLE_RAW)
		fprintf(out, " raw=%u", s->raw_size);
	if (st & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT))
		fprintf(out, " weight=%" PRIu64, pb_sample_weight(s));
	if (st & PERF_SAMPLE_WEIGHT_STRUCT)
		fprintf(out, " ins_lat=%u retire_lat=%u", s->weight_var2, s->weight_var3);
	if (st & PERF_SAMPLE_DATA_SRC) {
		/* last on the line: the decoded text has spaces in it */
		char text[PB_MEM_SRC_TEXT_MAX];
		pb_mem_data_src_format(s->data_src, text, sizeof text);
		fprintf(out, " data_src=0x%" PRIx64 " %s", s->data_src, text);
	}
	fprintf(out, "\n");
	for (size_t i = 0; i < sum->ndecoders; i++)
		sum->decoders[i].decoder->dump(sum->decoders[i].state, event, s, out);
}

/* The mappings and forks, which name the histogram's addresses. */
static __attribute__((noinline)) int on_mapping(struct pb_pdsum *sum, const struct pb_record *rec,
						struct pb_error *err)
{
	if (sum->histogram && pb_symbolizer_take(&sum->sym, rec))
		return pb_fail(err, PB_EXIT_FAILURE, ENOMEM, "out of memory for the mappings");
	return 0;
}

/* What a sample gives beyond the histogram: its data source, its --dump line. */
static __attribute__((noinline)) int sample_extras(struct pb_pdsum *sum, int event,
						   const struct pb_sample *s, struct pb_error *err)
{
	if ((s->sample_type & PERF_SAMPLE_DATA_SRC) && pb_mem_table_add(&sum->mem, event, s))
		return pb_fail(err, PB_EXIT_FAILURE, ENOMEM, "out of memory for the data sources");
	if (sum->dump)
		dump_sample(sum, event, s);
	return 0;
}

/* A sample of an (event, IP) the histogram has not seen yet. */
static __attribute__((noinline)) int histogram_add_new(struct pb_pdsum *sum, int event,
						       uint64_t ip, uint32_t pid)
{
	return pb_histogram_add(&sum->hist, (uint64_t)event, ip, pid);
}

/* The samples the walk hands over as IP and pid only (pb_perfdata_for_each_ip): those of a
 * fixed layout without a data source, when nothing is dumped. */
static int on_sample_ip(void *ctx, int event, uint64_t ip, uint32_t pid, struct pb_error *err)
{
	struct pb_pdsum *sum = ctx;
	if (sum->tap && sum->tap->sample_ip(sum->tap->ctx, event, ip, pid, err))
		return -1;
	if (sum->histogram && !pb_histogram_count_known(&sum->hist, (uint64_t)event, ip) &&
	    histogram_add_new(sum, event, ip, pid))
		return pb_fail(err, PB_EXIT_FAILURE, ENOMEM, "out of memory for the histogram");
	return 0;
}

static int on_record(void *ctx, int event, const struct pb_record *rec, const uint8_t *bytes,
		     size_t len, struct pb_error *err)
{
	struct pb_pdsum *sum = ctx;
	(void)bytes;
	(void)len;
	if (sum->tap && sum->tap->record(sum->tap->ctx, event, rec, err))
		return -1;
	if (rec->type != PERF_RECORD_SAMPLE)
		return on_mapping(sum, rec, err);
	if (event < 0)
		return 0;
	const struct pb_sample *s = &rec->u.sample;
	if (sum->histogram && (s->sample_type & PERF_SAMPLE_IP) &&
	    !pb_histogram_count_known(&sum->hist, (uint64_t)event, s->ip) &&
	    histogram_add_new(sum, event, s->ip, s->pid))
		return pb_fail(err, PB_EXIT_FAILURE, ENOMEM, "out of memory for the histogram");
	if ((s->sample_type & PERF_SAMPLE_DATA_SRC) || sum->dump)
		return sample_extras(sum, event, s, err);
	return 0;
}

int pb_pdsum_walk(struct pb_pdsum *s, struct pb_error *err)
{
	/* --histogram and a tap need a sample's IP and pid only, unless it carries its own
	 * period the tap wants; the data source table needs the data source */
	const struct pb_perfdata_ip_sink ip_sink = {
		.fn = on_sample_ip,
		.exclude = PERF_SAMPLE_DATA_SRC |
			   (s->tap && s->tap->needs_period ? PERF_SAMPLE_PERIOD : 0)};
	if (pb_perfdata_for_each_ip(s->pd, on_record,
				    (s->histogram || s->tap) && !s->dump ? &ip_sink : NULL, s,
				    &s->stats, err))
		return -1;
	if (pb_symbolizer_settle(&s->sym))
		return pb_fail(err, PB_EXIT_FAILURE, ENOMEM, "out of memory for the mappings");
	return 0;
}
