/* A perf.data file accounted for as pesbench accounts for its own sessions (`pesbench
 * perfdata`): one walk over its records counts per event the samples, losses and throttles
 * (the reader's), the samples per IP with --histogram (memory grows with distinct IPs only,
 * each once per era of its process's mappings it was sampled in),
 * the samples per data source with their weights (every sample carrying PERF_SAMPLE_DATA_SRC),
 * and with --dump prints every sample, each followed by what the facilities that know its event
 * decode of it (struct pb_perfdata_decoder). io/perfdata_report.c prints the result. */
#ifndef PB_PERFDATA_SUMMARY_H
#define PB_PERFDATA_SUMMARY_H

#include "analysis/profile.h"
#include "facilities/facility.h"
#include "perfdata/data_src.h"
#include "perfdata/perfdata.h"
#include "util/error.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* What else sees the records as the walk meets them (perfdata --export builds a profile). */
struct pb_pdsum_tap {
	/* every record, before the summary counts it */
	int (*record)(void *ctx, int event, const struct pb_record *rec, struct pb_error *err);
	/* the samples the walk takes by IP, pid and time only (pb_perfdata_for_each_ip; time
	 * PB_PERFDATA_NO_TIME without one), which record does not get */
	int (*sample_ip)(void *ctx, int event, uint64_t ip, uint32_t pid, uint64_t time,
			 struct pb_error *err);
	bool needs_period;       /* samples carrying their own period must reach record whole */
	void *ctx;
};

/* One decoder of the facilities and its state for the file. */
struct pb_pdsum_decoder {
	const struct pb_perfdata_decoder *decoder;
	void *state;
};

struct pb_pdsum {
	struct pb_perfdata *pd;
	bool histogram, dump;
	FILE *dump_out;                 /* where --dump writes its lines */
	struct pb_symbolizer sym;       /* the file's MMAP/MMAP2 records, to name the IPs */
	/* (event, ip) -> samples, with the pid and time of the first, which name the row
	 * (pb_symbolizer_name_at); an IP its process had two files mapped at in turn has a row
	 * per file (pb_pdsum_walk) */
	struct pb_histogram hist;
	uint64_t *distinct_ips;         /* per event: the distinct IPs of hist, after the walk */
	size_t ndistinct;
	struct pb_mem_table mem;        /* (event, data source) -> samples, weights */
	struct pb_perfdata_stats stats; /* the reader's, of the last walk */
	struct pb_pdsum_decoder *decoders;
	size_t ndecoders;
	const struct pb_pdsum_tap *tap; /* NULL: none */
};

/* Starts the summary of open file pd: every distinct decoder of facilities (NULL-terminated;
 * facilities sharing one decoder give it once) that claims some event of the file. Sets
 * s->pd; s->histogram, dump, dump_out and tap are the caller's, set before the walk. */
int pb_pdsum_open(struct pb_pdsum *s, struct pb_perfdata *pd,
		  const struct pb_facility *const *facilities, struct pb_error *err);
/* Walks the file's records once into s; err says what was wrong with the file. The
 * histogram is sorted after it (pb_histogram_sort): nothing more can be added to it. */
int pb_pdsum_walk(struct pb_pdsum *s, struct pb_error *err);
/* The distinct IPs of event's rows of the histogram (a row per file an IP was named by). */
uint64_t pb_pdsum_distinct_ips(const struct pb_pdsum *s, size_t event);
/* Frees what s holds (not the file). */
void pb_pdsum_free(struct pb_pdsum *s);

#endif
