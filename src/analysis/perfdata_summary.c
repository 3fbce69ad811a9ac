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
	pb_symbolizer_recorded_on(&s->sym, pd);
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
	free(s->distinct_ips);
	s->distinct_ips = NULL;
	s->ndistinct = 0;
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
		fprintf(out, " ip=0x%" PRIx64, s->ip);
	if (st & PERF_SAMPLE_TID)
		fprintf(out, " pid=%u tid=%u", s->pid, s->tid);
	if (st & PERF_SAMPLE_TIME)
		fprintf(out, " time=%" PRIu64, s->time);
	if (st & PERF_SAMPLE_ADDR)
		fprintf(out, " addr=0x%" PRIx64, s->addr);
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

/* The sink's "no time" is the symbolizer's, so a time passes on as it is. */
_Static_assert(PB_PERFDATA_NO_TIME == PB_SYM_TIME_UNKNOWN, "a sample without a time");

/* The histogram's rows during the walk are IPs of one era of their process's mappings
 * (pb_symbolizer_era), the era in the high half of the group: a process can map another file
 * where one was (dlclose then dlopen, a JIT's code), and one row per IP would name the samples
 * of both by one file. Keeping eras apart as the samples stream by costs no more than the
 * era's lookup (mostly the symbolizer's cached last answer) and no second key; which eras
 * actually name an IP differently is known only when every mapping is (fold_eras). */
static inline uint64_t hist_group(uint32_t era, int event)
{
	return (uint64_t)era << 32 | (uint32_t)event;
}

/* A sample of a (group, IP) the histogram has not seen yet: it names the row. */
static __attribute__((noinline)) int histogram_add_new(struct pb_pdsum *sum, uint64_t group,
						       uint64_t ip, uint32_t pid, uint64_t time)
{
	if (pb_histogram_add(&sum->hist, group, ip, pid))
		return -1;
	sum->hist.rows[sum->hist.n - 1].time = time; /* new (count_known missed it): the last */
	return 0;
}

/* A sample whose era the symbolizer's cached answer does not give, or of a new row. */
static __attribute__((noinline)) int count_ip_slow(struct pb_pdsum *sum, int event, uint64_t ip,
						   uint32_t pid, uint64_t time,
						   struct pb_error *err)
{
	const uint64_t group = hist_group(pb_symbolizer_era(&sum->sym, pid, time), event);
	if (!pb_histogram_count_known(&sum->hist, group, ip) &&
	    histogram_add_new(sum, group, ip, pid, time))
		return pb_fail(err, PB_EXIT_FAILURE, ENOMEM, "out of memory for the histogram");
	return 0;
}

/* Counts a sample. The common case (the era pb_symbolizer_era answered last, tested as it
 * tests it first; a known row) is inline and calls nothing, so it saves no registers: with a
 * call to the era's lookup per sample, --histogram of 10 M samples took 10 % longer. */
static inline int count_ip(struct pb_pdsum *sum, int event, uint64_t ip, uint32_t pid,
			   uint64_t time, struct pb_error *err)
{
	const struct pb_symbolizer *sy = &sum->sym;
	uint32_t era;
	if (time == PB_SYM_TIME_UNKNOWN)
		era = PB_SYM_ERA_UNKNOWN;
	else if (!pb_symbolizer_era_cached(sy, pid, time, &era))
		return count_ip_slow(sum, event, ip, pid, time, err);
	if (pb_histogram_count_known(&sum->hist, hist_group(era, event), ip))
		return 0;
	return count_ip_slow(sum, event, ip, pid, time, err);
}

/* A sample of on_sample_ip for both a tap and the histogram. Out of line: a call that
 * returns here would make every sample save and restore registers. */
static __attribute__((noinline)) int tap_and_count(struct pb_pdsum *sum, int event, uint64_t ip,
						   uint32_t pid, uint64_t time,
						   struct pb_error *err)
{
	if (sum->tap->sample_ip(sum->tap->ctx, event, ip, pid, time, err))
		return -1;
	return count_ip(sum, event, ip, pid, time, err);
}

/* The samples the walk hands over as IP, pid and time only (pb_perfdata_for_each_ip): those
 * of a fixed layout without a data source, when nothing is dumped. Every call from here is
 * its last act (a jump), so a sample saves no register here. */
static int on_sample_ip(void *ctx, int event, uint64_t ip, uint32_t pid, uint64_t time,
			struct pb_error *err)
{
	struct pb_pdsum *sum = ctx;
	if (sum->tap && sum->histogram)
		return tap_and_count(sum, event, ip, pid, time, err);
	if (sum->tap)
		return sum->tap->sample_ip(sum->tap->ctx, event, ip, pid, time, err);
	return sum->histogram ? count_ip(sum, event, ip, pid, time, err) : 0;
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
	    count_ip(sum, event, s->ip, s->pid,
		     (s->sample_type & PERF_SAMPLE_TIME) ? s->time : PB_SYM_TIME_UNKNOWN, err))
		return -1;
	if ((s->sample_type & PERF_SAMPLE_DATA_SRC) || sum->dump)
		return sample_extras(sum, event, s, err);
	return 0;
}

/* By event, IP, then the time of the first sample. */
static int cmp_ip_time(const void *a, const void *b)
{
	const struct pb_hist_row *x = a, *y = b;
	if ((uint32_t)x->group != (uint32_t)y->group)
		return (uint32_t)x->group < (uint32_t)y->group ? -1 : 1;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->time < y->time ? -1 : x->time > y->time;
}

/* Whether an address has one name in both mappings: the same place of the same file. */
static bool same_naming(const struct pb_sym_map *a, const struct pb_sym_map *b)
{
	return a == b ||
	       (a && b && a->start - a->pgoff == b->start - b->pgoff && !strcmp(a->path, b->path));
}

/* After the walk, with every mapping known: the rows of one IP in several eras merge where
 * those eras name it by the same file (a process maps many things; most leave a hot IP's
 * file where it was), into the row of the earliest, which names it; the rest stay rows of
 * their own, one per file, so no sample is counted to a file that was not mapped at its time.
 * Only IPs with several rows look up their mappings. Counts the distinct IPs per event. */
static int fold_eras(struct pb_pdsum *s)
{
	struct pb_histogram *h = &s->hist;
	const size_t nev = pb_perfdata_nevents(s->pd);
	free(s->distinct_ips);
	s->distinct_ips = calloc(nev ? nev : 1, sizeof *s->distinct_ips);
	const struct pb_sym_map **named = malloc((h->n ? h->n : 1) * sizeof *named);
	if (!s->distinct_ips || !named) {
		free(named);
		return -1;
	}
	s->ndistinct = nev;
	if (h->n > 1)
		qsort(h->rows, h->n, sizeof *h->rows, cmp_ip_time);
	size_t out = 0;
	for (size_t k = 0, end; k < h->n; k = end) {
		const uint32_t event = (uint32_t)h->rows[k].group;
		for (end = k + 1; end < h->n && (uint32_t)h->rows[end].group == event &&
				  h->rows[end].addr == h->rows[k].addr;
		     end++)
			;
		if (event < nev)
			s->distinct_ips[event]++;
		const size_t first = out;
		for (size_t j = k; j < end; j++) {
			struct pb_hist_row r = h->rows[j];
			r.group = event;
			size_t i = out;
			if (end - k > 1) {
				named[out] = pb_symbolizer_map_at(&s->sym, r.pid, r.addr, r.time);
				for (i = first; i < out && !same_naming(named[i], named[out]); i++)
					;
			}
			if (i < out)
				h->rows[i].count += r.count;
			else
				h->rows[out++] = r;
		}
	}
	free(named);
	h->n = out;
	pb_histogram_sort(h); /* the index keys rows of eras, which are no more */
	return 0;
}

uint64_t pb_pdsum_distinct_ips(const struct pb_pdsum *s, size_t event)
{
	return event < s->ndistinct ? s->distinct_ips[event] : 0;
}

int pb_pdsum_walk(struct pb_pdsum *s, struct pb_error *err)
{
	/* --histogram and a tap need a sample's IP, pid and time only (the time picks the
	 * mapping that names it), unless it carries its own period the tap wants; the data
	 * source table needs the data source */
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
	if (s->histogram && fold_eras(s))
		return pb_fail(err, PB_EXIT_FAILURE, ENOMEM, "out of memory for the histogram");
	return 0;
}
