/* `pesbench perfdata FILE`: reads a user's perf.data (any facility perf records) and accounts for
 * it the way pesbench accounts for its own sessions: per event the samples, losses and
 * throttles; with --histogram the samples per IP (memory grows with distinct IPs only); with
 * --dump every sample, IBS raw payloads decoded as `perf report -D` prints them, the weight and
 * data source of memory samples as `perf script -F weight,data_src` prints them. Samples that
 * carry a data source (PEBS load latency / stores, IBS through perf, SPE) are also counted per
 * memory level with their mean weight. */
#include "analysis/profile.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "export/from_perfdata.h"
#include "facilities/ibs_raw.h"
#include "facilities/pebs_memory.h"
#include "perfdata/perfdata.h"
#include "util/error.h"
#include "util/kit.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_TOP 20
#define STR(x) #x
#define TEXT(x) STR(x)

/* (event, data source reduced to what names the operation and the level) -> samples and the
 * sum of their weights; grows with distinct data sources only. */
#define MEM_KEY_MASK                                                                      \
	((0x1full << PERF_MEM_OP_SHIFT) | (0x3fffull << PERF_MEM_LVL_SHIFT) |               \
	 (0xfull << PERF_MEM_LVLNUM_SHIFT) | (1ull << PERF_MEM_REMOTE_SHIFT) |               \
	 (0x7ull << 43 /* PERF_MEM_HOPS_SHIFT */))

/* One (event, data source key) and its samples; the map finds its row. */
struct mem_slot {
	uint64_t key;
	uint64_t count;
	uint64_t weighted, weight_sum;
	int event;
};

struct mem_table {
	struct pb_hashmap index;   /* (event, key) -> slot */
	struct mem_slot *slots;
	size_t used, cap;
	uint64_t samples;
};

/* weight as perf reads it: the whole u64, or var1_dw of WEIGHT_STRUCT */
static uint64_t sample_weight(const struct pb_sample *s)
{
	return (s->sample_type & PERF_SAMPLE_WEIGHT_STRUCT) ? s->weight_var1 : s->weight;
}

static int mem_add(struct mem_table *t, int event, const struct pb_sample *s)
{
	if (pb_grow(&t->slots, &t->cap, t->used, sizeof *t->slots, 64))
		return -1;
	uint64_t key = s->data_src & MEM_KEY_MASK;
	bool added;
	uint64_t *slot = pb_hashmap_upsert(&t->index, (uint64_t)(unsigned)event, key, &added);
	if (!slot)
		return -1;
	if (added) {
		t->slots[t->used] = (struct mem_slot){.key = key, .event = event};
		*slot = t->used++;
	}
	struct mem_slot *m = &t->slots[*slot];
	m->count++;
	t->samples++;
	if (s->sample_type & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT)) {
		m->weighted++;
		m->weight_sum += sample_weight(s);
	}
	return 0;
}

/* A row of the table: data sources that print the same operation and level are one row. */
struct mem_row {
	int event;
	char op[16];
	char *lvl;
	uint64_t count, weighted, weight_sum;
};

static int cmp_mem_row_names(const struct mem_row *x, const struct mem_row *y)
{
	if (x->event != y->event)
		return x->event < y->event ? -1 : 1;
	int c = strcmp(x->op, y->op);
	return c ? c : strcmp(x->lvl, y->lvl);
}

static int cmp_mem_row_name(const void *a, const void *b)
{
	return cmp_mem_row_names(a, b);
}

static int cmp_mem_row_count(const void *a, const void *b)
{
	const struct mem_row *x = a, *y = b;
	if (x->event != y->event)
		return x->event < y->event ? -1 : 1;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return cmp_mem_row_names(x, y);
}

/* Rows by event, then samples descending; NULL (and *n = 0) when out of memory. */
static struct mem_row *mem_rows(const struct mem_table *t, size_t *n)
{
	struct mem_row *rows = calloc(t->used ? t->used : 1, sizeof(*rows));
	size_t k = 0;
	*n = 0;
	if (!rows)
		return NULL;
	for (size_t i = 0; i < t->used; i++) {
		const struct mem_slot *m = &t->slots[i];
		struct pb_mem_src src;
		char lvl[PB_MEM_SRC_TEXT_MAX];
		pb_mem_data_src_decode(m->key, &src);
		pb_mem_op_format(&src, rows[k].op, sizeof rows[k].op);
		pb_mem_lvl_format(&src, lvl, sizeof lvl);
		rows[k].lvl = strdup(lvl);
		if (!rows[k].lvl) {
			for (size_t j = 0; j < k; j++)
				free(rows[j].lvl);
			free(rows);
			return NULL;
		}
		rows[k].event = m->event;
		rows[k].count = m->count;
		rows[k].weighted = m->weighted;
		rows[k].weight_sum = m->weight_sum;
		k++;
	}
	qsort(rows, k, sizeof(*rows), cmp_mem_row_name);
	size_t out = 0;
	for (size_t i = 0; i < k; i++) {
		if (out && !cmp_mem_row_names(&rows[out - 1], &rows[i])) {
			rows[out - 1].count += rows[i].count;
			rows[out - 1].weighted += rows[i].weighted;
			rows[out - 1].weight_sum += rows[i].weight_sum;
			free(rows[i].lvl);
			continue;
		}
		rows[out++] = rows[i];
	}
	qsort(rows, out, sizeof(*rows), cmp_mem_row_count);
	*n = out;
	return rows;
}

static void mem_rows_free(struct mem_row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(rows[i].lvl);
	free(rows);
}

struct walk {
	struct pb_perfdata *pd;
	struct pb_symbolizer sym;   /* the file's MMAP/MMAP2 records, to name the histogram's IPs */
	bool histogram, dump, json;
	struct pb_histogram hist;   /* (event, ip) -> samples */
	struct mem_table mem;
	size_t nev_known;        /* events known at open; a pipe file may add more while walking */
	bool *is_ibs;
	enum pb_ibs_kind *ibs_kind;
	struct pb_ibs_cpu *ibs_cpu;
	uint64_t ibs_decoded, ibs_bad;
	struct pb_xperf *exp;       /* --export: the profile being built, NULL without */
};

static void dump_sample(struct walk *wk, int event, const struct pb_sample *s)
{
	uint64_t st = s->sample_type;
	printf("sample event=%d", event);
	if (st & PERF_SAMPLE_IP)
		printf(" ip=%#" PRIx64, s->ip);
	if (st & PERF_SAMPLE_TID)
		printf(" pid=%u tid=%u", s->pid, s->tid);
	if (st & PERF_SAMPLE_TIME)
		printf(" time=%" PRIu64, s->time);
	if (st & PERF_SAMPLE_ADDR)
		printf(" addr=%#" PRIx64, s->addr);
	if (st & PERF_SAMPLE_CPU)
		printf(" cpu=%u", s->cpu);
	if (st & PERF_SAMPLE_PERIOD)
		printf(" period=%" PRIu64, s->period);
	if (st & PERF_SAMPLE_RAW)
		printf(" raw=%u", s->raw_size);
	if (st & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT))
		printf(" weight=%" PRIu64, sample_weight(s));
	if (st & PERF_SAMPLE_WEIGHT_STRUCT)
		printf(" ins_lat=%u retire_lat=%u", s->weight_var2, s->weight_var3);
	if (st & PERF_SAMPLE_DATA_SRC) {
		/* last on the line: the decoded text has spaces in it */
		char text[PB_MEM_SRC_TEXT_MAX];
		pb_mem_data_src_format(s->data_src, text, sizeof text);
		printf(" data_src=0x%" PRIx64 " %s", s->data_src, text);
	}
	printf("\n");
	if (!(st & PERF_SAMPLE_RAW) || (size_t)event >= wk->nev_known || !wk->is_ibs[event] ||
	    !s->raw)
		return;
	struct pb_ibs_sample ibs;
	struct pb_error err = {0};
	if (pb_ibs_decode(s->raw, s->raw_size, wk->ibs_kind[event], &wk->ibs_cpu[event], &ibs,
			  &err)) {
		wk->ibs_bad++;
		printf("  (IBS payload not decoded: %s)\n", err.msg);
		return;
	}
	wk->ibs_decoded++;
	pb_ibs_print(stdout, &ibs);
}

/* The mappings, which name the histogram's addresses. Out of line, like sample_extras: the
 * per-sample path of on_record then saves and restores only the few registers it uses. */
static __attribute__((noinline)) int on_mapping(struct walk *wk, const struct pb_record *rec,
						struct pb_error *err)
{
	if (wk->histogram && (rec->type == PERF_RECORD_MMAP || rec->type == PERF_RECORD_MMAP2) &&
	    rec->u.mmap.filename &&
	    pb_symbolizer_add_map(&wk->sym, rec->u.mmap.pid, rec->u.mmap.addr, rec->u.mmap.len,
				  rec->u.mmap.pgoff, rec->u.mmap.filename))
		return pb_fail(err, PB_EXIT_FAILURE, ENOMEM, "out of memory for the mappings");
	return 0;
}

/* What a sample gives beyond the histogram: its data source, its --dump line. */
static __attribute__((noinline)) int sample_extras(struct walk *wk, int event,
						   const struct pb_sample *s, struct pb_error *err)
{
	if ((s->sample_type & PERF_SAMPLE_DATA_SRC) && mem_add(&wk->mem, event, s))
		return pb_fail(err, PB_EXIT_FAILURE, ENOMEM, "out of memory for the data sources");
	if (wk->dump)
		dump_sample(wk, event, s);
	return 0;
}

/* A sample of an (event, IP) the histogram has not seen yet. */
static __attribute__((noinline)) int histogram_add_new(struct walk *wk, int event, uint64_t ip,
						       uint32_t pid)
{
	return pb_histogram_add(&wk->hist, (uint64_t)event, ip, pid);
}

/* The samples the walk hands over as IP and pid only (pb_perfdata_for_each_ip): those of a
 * fixed layout without a data source, when nothing is dumped. */
static int on_sample_ip(void *ctx, int event, uint64_t ip, uint32_t pid, struct pb_error *err)
{
	struct walk *wk = ctx;
	if (wk->exp && pb_xperf_sample_ip(wk->exp, event, ip, pid, err))
		return -1;
	if (wk->histogram && !pb_histogram_count_known(&wk->hist, (uint64_t)event, ip) &&
	    histogram_add_new(wk, event, ip, pid))
		return pb_fail(err, PB_EXIT_FAILURE, ENOMEM, "out of memory for the histogram");
	return 0;
}

static int on_record(void *ctx, int event, const struct pb_record *rec, const uint8_t *bytes,
		     size_t len, struct pb_error *err)
{
	struct walk *wk = ctx;
	(void)bytes;
	(void)len;
	if (wk->exp && pb_xperf_record(wk->exp, event, rec, err))
		return -1;
	if (rec->type != PERF_RECORD_SAMPLE)
		return on_mapping(wk, rec, err);
	if (event < 0)
		return 0;
	const struct pb_sample *s = &rec->u.sample;
	if (wk->histogram && (s->sample_type & PERF_SAMPLE_IP) &&
	    !pb_histogram_count_known(&wk->hist, (uint64_t)event, s->ip) &&
	    histogram_add_new(wk, event, s->ip, s->pid))
		return pb_fail(err, PB_EXIT_FAILURE, ENOMEM, "out of memory for the histogram");
	if ((s->sample_type & PERF_SAMPLE_DATA_SRC) || wk->dump)
		return sample_extras(wk, event, s, err);
	return 0;
}

/* perf's names for its own record types (tools/lib/perf/include/perf/event.h). */
static const char *user_record_name(unsigned type)
{
	static const char *const names[] = {
		"HEADER_ATTR", "HEADER_EVENT_TYPE", "HEADER_TRACING_DATA", "HEADER_BUILD_ID",
		"FINISHED_ROUND", "ID_INDEX", "AUXTRACE_INFO", "AUXTRACE", "AUXTRACE_ERROR",
		"THREAD_MAP", "CPU_MAP", "STAT_CONFIG", "STAT", "STAT_ROUND", "EVENT_UPDATE",
		"TIME_CONV", "HEADER_FEATURE", "COMPRESSED", "FINISHED_INIT"};
	static char other[24];
	unsigned i = type - PB_PERF_RECORD_USER_TYPE_START;
	if (type >= PB_PERF_RECORD_USER_TYPE_START && i < PB_ARRAY_SIZE(names))
		return names[i];
	snprintf(other, sizeof other, "type%u%s", type,
		 type == PB_PERF_RECORD_USER_TYPE_MAX - 1 ? "+" : "");
	return other;
}

static const char *pmu_label(struct pb_perfdata *pd, uint32_t type)
{
	const char *n = pb_perfdata_pmu_name(pd, type);
	return n ? n : "?";
}

static void print_histogram(struct walk *wk, uint64_t top);

static void print_mem_table(struct walk *wk)
{
	struct pb_perfdata *pd = wk->pd;
	size_t n;
	struct mem_row *rows = mem_rows(&wk->mem, &n);
	if (!rows) {
		printf("\n  (no memory for the data source table)\n");
		return;
	}
	for (size_t i = 0; i < pb_perfdata_nevents(pd); i++) {
		const struct pb_perfdata_event *ev = pb_perfdata_event(pd, i);
		uint64_t total = 0;
		for (size_t k = 0; k < n; k++)
			total += rows[k].event == (int)i ? rows[k].count : 0;
		if (!total)
			continue;
		printf("\n  samples per data source, event %zu (%s): %" PRIu64
		       " samples with a data source\n", i, ev->name, total);
		printf("  %12s %8s %12s  %-6s  %s\n", "samples", "share", "mean weight", "op",
		       "level");
		for (size_t k = 0; k < n; k++) {
			const struct mem_row *r = &rows[k];
			if (r->event != (int)i)
				continue;
			char mean[32] = "-";
			if (r->weighted)
				snprintf(mean, sizeof mean, "%.1f",
					 (double)r->weight_sum / (double)r->weighted);
			printf("  %12" PRIu64 " %7.3f%% %12s  %-6s  %s\n", r->count,
			       100.0 * (double)r->count / (double)total, mean, r->op, r->lvl);
		}
	}
	mem_rows_free(rows, n);
}

static void print_text(struct walk *wk, const char *path, const struct pb_perfdata_stats *st,
		       uint64_t top)
{
	struct pb_perfdata *pd = wk->pd;
	uint32_t avail, online;
	printf("%s: %" PRIu64 " bytes of records, %" PRIu64 " records, %" PRIu64 " samples\n", path,
	       pb_perfdata_data_size(pd), st->records, st->samples);
	printf("  recorded by   %s on %s (%s, %s)\n",
	       pb_perfdata_perf_version(pd)[0] ? pb_perfdata_perf_version(pd) : "?",
	       pb_perfdata_hostname(pd)[0] ? pb_perfdata_hostname(pd) : "?",
	       pb_perfdata_arch(pd)[0] ? pb_perfdata_arch(pd) : "?",
	       pb_perfdata_osrelease(pd)[0] ? pb_perfdata_osrelease(pd) : "?");
	printf("  cpuid         %s\n", pb_perfdata_cpuid(pd)[0] ? pb_perfdata_cpuid(pd) : "(none)");
	if (pb_perfdata_nr_cpus(pd, &avail, &online))
		printf("  cpus          %u online, %u available\n", online, avail);
	printf("  pmu mappings ");
	for (size_t i = 0; i < pb_perfdata_npmus(pd); i++)
		printf(" %s=%u", pb_perfdata_pmu(pd, i)->name, pb_perfdata_pmu(pd, i)->type);
	printf("%s\n", pb_perfdata_npmus(pd) ? "" : " (none)");
	printf("  records skipped: %" PRIu64 " perf user records (types >= 64), %" PRIu64
	       " of kernel types pesbench does not decode\n", st->user_records, st->unknown);
	if (st->user_records) {
		printf("  user records: ");
		for (unsigned t = PB_PERF_RECORD_USER_TYPE_START; t < PB_PERF_RECORD_USER_TYPE_MAX; t++)
			if (st->by_type[t])
				printf(" %s=%" PRIu64, user_record_name(t), st->by_type[t]);
		printf("\n");
	}
	if (st->unattributed)
		printf("  %" PRIu64 " samples carry an id no event of the file has\n",
		       st->unattributed);
	printf("\n  %-3s %-28s %-12s %12s %10s %10s %10s\n", "#", "event", "pmu", "samples", "lost",
	       "throttled", "period");
	for (size_t i = 0; i < pb_perfdata_nevents(pd); i++) {
		const struct pb_perfdata_event *ev = pb_perfdata_event(pd, i);
		char period[32];
		if (ev->attr.freq)
			snprintf(period, sizeof period, "%llu Hz", (unsigned long long)ev->attr.sample_freq);
		else
			snprintf(period, sizeof period, "%llu",
				 (unsigned long long)ev->attr.sample_period);
		printf("  %-3zu %-28s %-12s %12" PRIu64 " %10" PRIu64 " %10" PRIu64 " %10s\n", i,
		       ev->name, pmu_label(pd, ev->attr.type), ev->samples,
		       ev->lost + ev->lost_samples, ev->throttles, period);
	}
	if (wk->dump && wk->ibs_decoded + wk->ibs_bad)
		printf("\n  IBS payloads: %" PRIu64 " decoded, %" PRIu64 " not decodable\n",
		       wk->ibs_decoded, wk->ibs_bad);
	if (wk->histogram)
		print_histogram(wk, top);
	if (wk->mem.samples)
		print_mem_table(wk);
}

static void print_histogram(struct walk *wk, uint64_t top)
{
	struct pb_perfdata *pd = wk->pd;
	pb_histogram_sort(&wk->hist);
	size_t n = wk->hist.n;
	for (size_t i = 0; i < pb_perfdata_nevents(pd); i++) {
		const struct pb_perfdata_event *ev = pb_perfdata_event(pd, i);
		size_t distinct = 0;
		for (size_t k = 0; k < n; k++)
			distinct += wk->hist.rows[k].group == i;
		printf("\n  samples per IP, event %zu (%s): %zu distinct IPs\n", i, ev->name, distinct);
		printf("  %12s %8s  %-18s %s\n", "samples", "share", "ip", "symbol");
		uint64_t shown = 0;
		for (size_t k = 0; k < n && shown < top; k++) {
			const struct pb_hist_row *s = &wk->hist.rows[k];
			if (s->group != i)
				continue;
			char sym[256];
			pb_symbolizer_name(&wk->sym, s->pid, s->addr, sym, sizeof sym);
			printf("  %12" PRIu64 " %7.3f%%  %#-18" PRIx64 " %s\n", s->count,
			       ev->samples ? 100.0 * (double)s->count / (double)ev->samples : 0.0,
			       s->addr, sym);
			shown++;
		}
	}
}

static int print_json(struct walk *wk, const struct pb_perfdata_stats *st, uint64_t top)
{
	struct pb_perfdata *pd = wk->pd;
	json_t *root = json_object(), *events = json_array(), *pmus = json_object();
	uint32_t avail, online;
	json_object_set_new(root, "schema", json_string("pesbench-perfdata/1"));
	json_object_set_new(root, "perf_version", json_string(pb_perfdata_perf_version(pd)));
	json_object_set_new(root, "hostname", json_string(pb_perfdata_hostname(pd)));
	json_object_set_new(root, "arch", json_string(pb_perfdata_arch(pd)));
	json_object_set_new(root, "cpuid", json_string(pb_perfdata_cpuid(pd)));
	if (pb_perfdata_nr_cpus(pd, &avail, &online)) {
		json_object_set_new(root, "cpus_online", json_integer(online));
		json_object_set_new(root, "cpus_available", json_integer(avail));
	}
	for (size_t i = 0; i < pb_perfdata_npmus(pd); i++)
		json_object_set_new(pmus, pb_perfdata_pmu(pd, i)->name,
				    json_integer(pb_perfdata_pmu(pd, i)->type));
	json_object_set_new(root, "pmu_mappings", pmus);
	json_object_set_new(root, "records", json_integer((json_int_t)st->records));
	json_object_set_new(root, "samples", json_integer((json_int_t)st->samples));
	json_object_set_new(root, "unattributed_samples", json_integer((json_int_t)st->unattributed));
	json_object_set_new(root, "user_records_skipped", json_integer((json_int_t)st->user_records));
	json_object_set_new(root, "unknown_records_skipped", json_integer((json_int_t)st->unknown));
	if (wk->histogram)
		pb_histogram_sort(&wk->hist);
	size_t n = wk->hist.n;
	size_t nmem = 0;
	struct mem_row *mem = wk->mem.samples ? mem_rows(&wk->mem, &nmem) : NULL;
	if (wk->mem.samples && !mem) {
		json_decref(root);
		json_decref(events);
		json_decref(pmus);
		fprintf(stderr, "pesbench perfdata: out of memory for the data source table\n");
		return PB_EXIT_FAILURE;
	}
	for (size_t i = 0; i < pb_perfdata_nevents(pd); i++) {
		const struct pb_perfdata_event *ev = pb_perfdata_event(pd, i);
		json_t *e = json_object();
		json_object_set_new(e, "name", json_string(ev->name));
		json_object_set_new(e, "type", json_integer(ev->attr.type));
		json_object_set_new(e, "pmu", json_string(pmu_label(pd, ev->attr.type)));
		json_object_set_new(e, "config", json_integer((json_int_t)ev->attr.config));
		json_object_set_new(e, "sample_type", json_integer((json_int_t)ev->attr.sample_type));
		json_object_set_new(e, ev->attr.freq ? "sample_freq" : "sample_period",
				    json_integer((json_int_t)ev->attr.sample_period));
		json_object_set_new(e, "ids", json_integer((json_int_t)ev->nids));
		json_object_set_new(e, "samples", json_integer((json_int_t)ev->samples));
		json_object_set_new(e, "lost", json_integer((json_int_t)ev->lost));
		json_object_set_new(e, "lost_samples", json_integer((json_int_t)ev->lost_samples));
		json_object_set_new(e, "throttles", json_integer((json_int_t)ev->throttles));
		json_object_set_new(e, "unthrottles", json_integer((json_int_t)ev->unthrottles));
		if (wk->histogram) {
			json_t *h = json_array();
			size_t distinct = 0;
			for (size_t k = 0; k < n; k++) {
				const struct pb_hist_row *s = &wk->hist.rows[k];
				if (s->group != i)
					continue;
				if (distinct++ < top) {
					json_t *row = json_object();
					char ip[24];
					snprintf(ip, sizeof ip, "%#" PRIx64, s->addr);
					json_object_set_new(row, "ip", json_string(ip));
					json_object_set_new(row, "samples", json_integer((json_int_t)s->count));
					char sym[256];
					pb_symbolizer_name(&wk->sym, s->pid, s->addr, sym, sizeof sym);
					json_object_set_new(row, "symbol", json_string(sym));
					json_array_append_new(h, row);
				}
			}
			json_object_set_new(e, "distinct_ips", json_integer((json_int_t)distinct));
			json_object_set_new(e, "top_ips", h);
		}
		uint64_t mem_samples = 0;
		json_t *sources = json_array();
		for (size_t k = 0; k < nmem; k++) {
			const struct mem_row *r = &mem[k];
			if (r->event != (int)i)
				continue;
			mem_samples += r->count;
			json_t *row = json_object();
			json_object_set_new(row, "op", json_string(r->op));
			json_object_set_new(row, "level", json_string(r->lvl));
			json_object_set_new(row, "samples", json_integer((json_int_t)r->count));
			json_object_set_new(row, "weighted_samples",
					    json_integer((json_int_t)r->weighted));
			if (r->weighted)
				json_object_set_new(row, "mean_weight",
						    json_real((double)r->weight_sum /
							      (double)r->weighted));
			json_array_append_new(sources, row);
		}
		if (mem_samples) {
			json_object_set_new(e, "data_source_samples",
					    json_integer((json_int_t)mem_samples));
			json_object_set_new(e, "data_sources", sources);
		} else {
			json_decref(sources);
		}
		json_array_append_new(events, e);
	}
	mem_rows_free(mem, nmem);
	json_object_set_new(root, "events", events);
	return pb_cli_print_json("perfdata", root, 2);
}

#define MAX_EXPORTS 8

struct perfdata_args {
	const char *path;
	uint64_t top;
	bool histogram, dump, json;
	struct pb_export_request exports[MAX_EXPORTS];
	size_t nexports;
};

static int add_export(void *args, const char *value, struct pb_error *err)
{
	struct perfdata_args *a = args;
	return pb_export_add(a->exports, &a->nexports, MAX_EXPORTS, value, err);
}

static void say_written(void *ctx, const char *path, const char *profile)
{
	(void)profile;
	fprintf(stderr, "pesbench perfdata: wrote %s (%s)\n", path, (const char *)ctx);
}

/* Writes every --export of the walk's profile; the first failure ends it. */
static int write_exports(struct walk *wk, const struct perfdata_args *a,
			 const struct pb_perfdata_stats *st)
{
	struct pb_error err = {0};
	const struct pb_xset *set = pb_xperf_finish(wk->exp, st, &err);
	for (size_t i = 0; set && i < a->nexports; i++)
		if (pb_export_write(&a->exports[i], set, say_written,
				    (void *)a->exports[i].format->name, &err))
			set = NULL;
	return set ? PB_EXIT_OK : pb_cli_report("perfdata", &err);
}

static int set_path(void *args, const char *value, struct pb_error *err)
{
	struct perfdata_args *a = args;
	if (a->path)
		return pb_fail(err, PB_EXIT_USAGE, 0, "one FILE only ('%s' and '%s')", a->path, value);
	a->path = value;
	return 0;
}

#define ARG(field, type) PB_AT(struct perfdata_args, field, type)

static const struct pb_opt perfdata_options[] = {
	{.name = "histogram", .kind = PB_OPT_FLAG, .at = ARG(histogram, bool),
	 .help = "samples per instruction address, the N most sampled (--top) with their share; "
		 "memory grows with distinct addresses only"},
	{.name = "top", .arg = "N", .kind = PB_OPT_U64, .at = ARG(top, uint64_t), .min = 1,
	 .max = UINT64_C(1) << 32, .help = "addresses the histogram shows (default "
	 TEXT(DEFAULT_TOP) ")"},
	{.name = "dump", .kind = PB_OPT_FLAG, .at = ARG(dump, bool),
	 .help = "one line per sample (ip, pid/tid, time, addr, cpu, period, weight, data source "
		 "decoded as `perf script -F data_src` prints it); AMD IBS raw payloads are decoded "
		 "as `perf report -D` prints them when the file's PMU mappings name ibs_op / "
		 "ibs_fetch"},
	{.name = "json", .kind = PB_OPT_FLAG, .at = ARG(json, bool),
	 .help = "the summary (and histogram) as JSON on stdout"},
	{.name = "export", .arg = "FORMAT:FILE", .kind = PB_OPT_CALL, .parse = add_export,
	 .repeatable = true, .example = "pprof:prof.pb.gz",
	 .help = "the samples as a profile, each call chain (perf record -g) or IP symbolised: "
		 "pprof (gzipped profile.proto), speedscope (JSON), folded (flame graph stacks); "
		 "values per event: samples and period; losses in the profile's comments"},
	{0},
};

const struct pb_cmd_spec pb_cmd_perfdata_spec = {
	.name = "perfdata",
	.summary = "read a perf.data: samples, losses, per-IP histogram, IBS decode",
	.operands = "FILE|-",
	.description =
		"Reads a perf.data file written by `perf record` (or by pesbench) and prints, per\n"
		"event, the samples, lost samples and throttles it holds, and the recording's\n"
		"machine (CPUID, CPUs, PMU mappings).\n",
	.options = perfdata_options,
	.args_size = sizeof(struct perfdata_args),
	.positional = set_path,
	.epilogue =
		"Samples with a data source (PERF_SAMPLE_DATA_SRC: PEBS memory events, IBS, SPE)\n"
		"are counted per operation and memory level, with their mean weight.\n"
		"Pipe-mode recordings (perf record -o -) are read too, from a file or from standard\n"
		"input (FILE -: perf record -o - ... | pesbench perfdata -). Exit 6 when the file is\n"
		"truncated, corrupt or of an unsupported kind (other byte order, compressed records).\n",
};

int pb_cmd_perfdata(int argc, char **argv)
{
	struct perfdata_args a = {.top = DEFAULT_TOP};
	int rest, r = pb_options_run(&pb_cmd_perfdata_spec, argc, argv, &a, &rest);
	if (r >= 0)
		return r;
	const char *path = a.path;
	struct walk wk = {.histogram = a.histogram, .dump = a.dump, .json = a.json};
	uint64_t top = a.top;
	if (!path) {
		pb_options_help(&pb_cmd_perfdata_spec, stderr);
		return PB_EXIT_USAGE;
	}
	if (wk.dump && wk.json) {
		fprintf(stderr, "pesbench perfdata: --dump and --json do not mix; pick one\n");
		return PB_EXIT_USAGE;
	}
	struct pb_error err = {0};
	if (pb_perfdata_open(path, &wk.pd, &err))
		return pb_cli_report("perfdata", &err);
	if (!strcmp(path, "-"))
		path = "standard input";
	const char *base = strrchr(path, '/');
	if (a.nexports && pb_xperf_start(wk.pd, base ? base + 1 : path, &wk.exp, &err)) {
		pb_perfdata_close(wk.pd);
		return pb_cli_report("perfdata", &err);
	}
	bool source = false;
	for (size_t i = 0; i < a.nexports; i++)
		source |= a.exports[i].format->source;
	if (wk.exp && !source)
		pb_xperf_no_source(wk.exp);
	size_t nev = pb_perfdata_nevents(wk.pd);
	wk.is_ibs = calloc(nev, sizeof(*wk.is_ibs));
	wk.ibs_kind = calloc(nev, sizeof(*wk.ibs_kind));
	wk.ibs_cpu = calloc(nev, sizeof(*wk.ibs_cpu));
	int rc = PB_EXIT_OK;
	if (!wk.is_ibs || !wk.ibs_kind || !wk.ibs_cpu) {
		rc = pb_cli_report("perfdata", &(struct pb_error){.code = PB_EXIT_FAILURE,
								  .msg = "out of memory"});
		goto out;
	}
	wk.nev_known = nev;
	for (size_t i = 0; i < nev; i++)
		wk.is_ibs[i] = pb_perfdata_ibs_event(wk.pd, i, &wk.ibs_kind[i], &wk.ibs_cpu[i]);
	struct pb_perfdata_stats st;
	/* --histogram and --export need a sample's IP and pid only, unless it carries its own
	 * period (the export's values); mem_add needs its data source */
	const struct pb_perfdata_ip_sink ip_sink = {
		.fn = on_sample_ip,
		.exclude = PERF_SAMPLE_DATA_SRC | (wk.exp ? PERF_SAMPLE_PERIOD : 0)};
	if (pb_perfdata_for_each_ip(wk.pd, on_record,
				    (wk.histogram || wk.exp) && !wk.dump ? &ip_sink : NULL, &wk, &st,
				    &err)) {
		fprintf(stderr, "pesbench perfdata: %s: %s\n", path, err.msg);
		rc = err.code ? err.code : PB_EXIT_FAILURE;
		goto out;
	}
	if (wk.exp && (rc = write_exports(&wk, &a, &st)))
		goto out;
	if (wk.json)
		rc = print_json(&wk, &st, top);
	else
		print_text(&wk, path, &st, top);
out:
	pb_xperf_free(wk.exp);
	pb_histogram_free(&wk.hist);
	pb_hashmap_free(&wk.mem.index);
	free(wk.mem.slots);
	pb_symbolizer_free(&wk.sym);
	free(wk.is_ibs);
	free(wk.ibs_kind);
	free(wk.ibs_cpu);
	pb_perfdata_close(wk.pd);
	return rc;
}
