/* The text and JSON of `pesbench perfdata` (perfdata_report.h). */
#include "io/perfdata_report.h"
#include "util/kit.h"
#include "util/text.h"

#include <inttypes.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

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

static void print_mem_table(struct pb_pdsum *s, FILE *out)
{
	struct pb_perfdata *pd = s->pd;
	size_t n;
	struct pb_mem_row *rows = pb_mem_table_rows(&s->mem, &n);
	if (!rows) {
		fprintf(out, "\n  (no memory for the data source table)\n");
		return;
	}
	for (size_t i = 0; i < pb_perfdata_nevents(pd); i++) {
		const struct pb_perfdata_event *ev = pb_perfdata_event(pd, i);
		uint64_t total = 0;
		for (size_t k = 0; k < n; k++)
			total += rows[k].event == (int)i ? rows[k].count : 0;
		if (!total)
			continue;
		fprintf(out, "\n  samples per data source, event %zu (%s): %" PRIu64
			" samples with a data source\n", i, ev->name, total);
		fprintf(out, "  %12s %8s %12s  %-6s  %s\n", "samples", "share", "mean weight", "op",
			"level");
		for (size_t k = 0; k < n; k++) {
			const struct pb_mem_row *r = &rows[k];
			if (r->event != (int)i)
				continue;
			char mean[32] = "-";
			if (r->weighted)
				snprintf(mean, sizeof mean, "%.1f",
					 (double)r->weight_sum / (double)r->weighted);
			fprintf(out, "  %12" PRIu64 " %7.3f%% %12s  %-6s  %s\n", r->count,
				100.0 * (double)r->count / (double)total, mean, r->op, r->lvl);
		}
	}
	pb_mem_rows_free(rows, n);
}

static const char *or_unknown(const char *s)
{
	return s[0] ? s : "?";
}

static void print_histogram(struct pb_pdsum *s, uint64_t top, FILE *out)
{
	struct pb_perfdata *pd = s->pd;
	pb_histogram_sort(&s->hist);
	size_t n = s->hist.n;
	for (size_t i = 0; i < pb_perfdata_nevents(pd); i++) {
		const struct pb_perfdata_event *ev = pb_perfdata_event(pd, i);
		fprintf(out, "\n  samples per IP, event %zu (%s): %" PRIu64 " distinct IPs\n", i,
			ev->name, pb_pdsum_distinct_ips(s, i));
		fprintf(out, "  %12s %8s  %-18s %s\n", "samples", "share", "ip", "symbol");
		uint64_t shown = 0;
		for (size_t k = 0; k < n && shown < top; k++) {
			const struct pb_hist_row *r = &s->hist.rows[k];
			if (r->group != i)
				continue;
			char sym[256];
			pb_symbolizer_name_at(&s->sym, r->pid, r->addr, r->time, sym, sizeof sym);
			fprintf(out, "  %12" PRIu64 " %7.3f%%  0x%-16" PRIx64 " %s\n", r->count,
				ev->samples ? 100.0 * (double)r->count / (double)ev->samples : 0.0,
				r->addr, or_unknown(sym));
			shown++;
		}
	}
	/* how the kernel's rows are named, when there are any */
	if (s->sym.kernel.state) {
		fprintf(out, "\n");
		pb_text_wrapped(out, "  ", s->sym.kernel.note, 4);
	}
}

void pb_perfdata_report_text(struct pb_pdsum *s, const char *path, uint64_t top, FILE *out)
{
	struct pb_perfdata *pd = s->pd;
	const struct pb_perfdata_stats *st = &s->stats;
	uint32_t avail, online;
	fprintf(out, "%s: %" PRIu64 " bytes of records, %" PRIu64 " records, %" PRIu64 " samples\n",
		path, pb_perfdata_data_size(pd), st->records, st->samples);
	fprintf(out, "  recorded by   %s on %s (%s, %s)\n",
		or_unknown(pb_perfdata_perf_version(pd)), or_unknown(pb_perfdata_hostname(pd)),
		or_unknown(pb_perfdata_arch(pd)), or_unknown(pb_perfdata_osrelease(pd)));
	fprintf(out, "  cpuid         %s\n",
		pb_perfdata_cpuid(pd)[0] ? pb_perfdata_cpuid(pd) : "(none)");
	if (pb_perfdata_nr_cpus(pd, &avail, &online))
		fprintf(out, "  cpus          %u online, %u available\n", online, avail);
	fprintf(out, "  pmu mappings ");
	for (size_t i = 0; i < pb_perfdata_npmus(pd); i++)
		fprintf(out, " %s=%u", pb_perfdata_pmu(pd, i)->name, pb_perfdata_pmu(pd, i)->type);
	fprintf(out, "%s\n", pb_perfdata_npmus(pd) ? "" : " (none)");
	fprintf(out, "  records skipped: %" PRIu64 " perf user records (types >= 64), %" PRIu64
		" of kernel types pesbench does not decode\n", st->user_records, st->unknown);
	if (st->user_records) {
		fprintf(out, "  user records: ");
		for (unsigned t = PB_PERF_RECORD_USER_TYPE_START; t < PB_PERF_RECORD_USER_TYPE_MAX;
		     t++)
			if (st->by_type[t])
				fprintf(out, " %s=%" PRIu64, user_record_name(t), st->by_type[t]);
		fprintf(out, "\n");
	}
	if (st->unattributed)
		fprintf(out, "  %" PRIu64 " samples carry an id no event of the file has\n",
			st->unattributed);
	fprintf(out, "\n  %-3s %-28s %-12s %12s %10s %10s %10s\n", "#", "event", "pmu", "samples",
		"lost", "throttled", "period");
	for (size_t i = 0; i < pb_perfdata_nevents(pd); i++) {
		const struct pb_perfdata_event *ev = pb_perfdata_event(pd, i);
		char period[32];
		if (ev->attr.freq)
			snprintf(period, sizeof period, "%llu Hz",
				 (unsigned long long)ev->attr.sample_freq);
		else
			snprintf(period, sizeof period, "%llu",
				 (unsigned long long)ev->attr.sample_period);
		fprintf(out, "  %-3zu %-28s %-12s %12" PRIu64 " %10" PRIu64 " %10" PRIu64 " %10s\n",
			i, ev->name, pmu_label(pd, ev->attr.type), ev->samples,
			ev->lost + ev->lost_samples, ev->throttles, period);
	}
	for (size_t i = 0; s->dump && i < s->ndecoders; i++)
		s->decoders[i].decoder->dump_summary(s->decoders[i].state, out);
	if (s->histogram)
		print_histogram(s, top, out);
	if (s->mem.samples)
		print_mem_table(s, out);
}

/* The top IPs of event i (rows sorted), and how many distinct IPs it has. */
static void json_histogram(struct pb_pdsum *s, size_t i, uint64_t top, json_t *e)
{
	json_t *h = json_array();
	size_t shown = 0;
	for (size_t k = 0; k < s->hist.n && shown < top; k++) {
		const struct pb_hist_row *r = &s->hist.rows[k];
		if (r->group != i)
			continue;
		shown++;
		json_t *row = json_object();
		char ip[24], sym[256];
		snprintf(ip, sizeof ip, "0x%" PRIx64, r->addr);
		json_object_set_new(row, "ip", json_string(ip));
		json_object_set_new(row, "samples", json_integer((json_int_t)r->count));
		pb_symbolizer_name_at(&s->sym, r->pid, r->addr, r->time, sym, sizeof sym);
		json_object_set_new(row, "symbol", json_string(sym));
		json_array_append_new(h, row);
	}
	json_object_set_new(e, "distinct_ips",
			    json_integer((json_int_t)pb_pdsum_distinct_ips(s, i)));
	json_object_set_new(e, "top_ips", h);
}

/* Event i's rows of the data source table, when it has any. */
static void json_data_sources(const struct pb_mem_row *mem, size_t nmem, size_t i, json_t *e)
{
	uint64_t mem_samples = 0;
	json_t *sources = json_array();
	for (size_t k = 0; k < nmem; k++) {
		const struct pb_mem_row *r = &mem[k];
		if (r->event != (int)i)
			continue;
		mem_samples += r->count;
		json_t *row = json_object();
		json_object_set_new(row, "op", json_string(r->op));
		json_object_set_new(row, "level", json_string(r->lvl));
		json_object_set_new(row, "samples", json_integer((json_int_t)r->count));
		json_object_set_new(row, "weighted_samples", json_integer((json_int_t)r->weighted));
		if (r->weighted)
			json_object_set_new(row, "mean_weight",
					    json_real((double)r->weight_sum / (double)r->weighted));
		json_array_append_new(sources, row);
	}
	if (mem_samples) {
		json_object_set_new(e, "data_source_samples",
				    json_integer((json_int_t)mem_samples));
		json_object_set_new(e, "data_sources", sources);
	} else {
		json_decref(sources);
	}
}

static json_t *json_event(struct pb_pdsum *s, size_t i, uint64_t top,
			  const struct pb_mem_row *mem, size_t nmem)
{
	struct pb_perfdata *pd = s->pd;
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
	if (s->histogram)
		json_histogram(s, i, top, e);
	json_data_sources(mem, nmem, i, e);
	return e;
}

json_t *pb_perfdata_report_json(struct pb_pdsum *s, uint64_t top)
{
	struct pb_perfdata *pd = s->pd;
	const struct pb_perfdata_stats *st = &s->stats;
	size_t nmem = 0;
	struct pb_mem_row *mem = s->mem.samples ? pb_mem_table_rows(&s->mem, &nmem) : NULL;
	if (s->mem.samples && !mem)
		return NULL;
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
	if (s->histogram)
		pb_histogram_sort(&s->hist);
	for (size_t i = 0; i < pb_perfdata_nevents(pd); i++)
		json_array_append_new(events, json_event(s, i, top, mem, nmem));
	pb_mem_rows_free(mem, nmem);
	json_object_set_new(root, "events", events);
	if (s->sym.kernel.state) {
		json_object_set_new(root, "kernel_symbols", json_boolean(s->sym.kernel.state > 0));
		json_object_set_new(root, "kernel_symbols_note", json_string(s->sym.kernel.note));
	}
	return root;
}
