/* Figure records: the key figures of a results document, one self-contained JSON object per
 * figure, each naming the machine and the run it comes from. They are what `results.jsonl`
 * holds (one record a line, docs/fleet.md) and what `compare` lines up: a results folder is
 * turned into the same records its run wrote, so any set of results.jsonl files concatenated
 * compares exactly as the folders they came from.
 *
 * Three kinds of record, told apart by "record":
 *  - "figure": experiment, facility (the canonical spec: old names such as "timer" read as
 *    "timer:cpu-clock"), workload, settings, metric, value, unit, interval {lo, hi, basis} or
 *    null when the figure has none, n, resolved, and the losses of the point it comes from;
 *    facility_kind: "precise" for a precise facility (compared with other vendors'), else the
 *    facility, from the point's traits (io/result_traits.h);
 *  - "scorecard": one entry of results.json's scorecard (per facility), when the file has one;
 *  - "done": the last line a run writes, with its exit code and whether it is complete.
 * Every record carries "machine" (host, CPU vendor/family/model/stepping, microcode, kernel,
 * hypervisor, PMUs, facility verdicts), "pesbench_version", "run_id" and "timestamp". */
#ifndef PB_FIGURES_H
#define PB_FIGURES_H

#include "io/result_model.h"
#include "util/error.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#define PB_FIGURE_SCHEMA "pesbench-figure/1"

/* The records of the results.json at path, as a JSON array (*records, a new reference), its
 * scorecard as the file holds it. label stands for the machine when the document names no host
 * (results written before hosts were recorded): in practice the folder's name. exit_code >= 0
 * appends the "done" record of a run that ended so; -1, the one of the exit code the file
 * holds (none from a build that wrote none). PB_EXIT_BAD_FILE as pb_results_load. */
int pb_figures_of_file(const char *path, const char *label, int exit_code, json_t **records,
		       struct pb_error *err);

/* Writes records to DIR/results.jsonl atomically, one a line. */
int pb_figures_write_jsonl(const char *dir, const json_t *records, struct pb_error *err);
/* Prints records one a line on out. */
void pb_figures_print_jsonl(FILE *out, const json_t *records);

/* Appends the records of a JSONL file (any concatenation of results.jsonl files) to records.
 * A line that is not a record of this schema is PB_EXIT_BAD_FILE naming the line. */
int pb_figures_load_jsonl(const char *path, json_t *records, struct pb_error *err);
/* The same on len bytes in memory; name stands for the file in messages. */
int pb_figures_parse_jsonl(const char *data, size_t len, const char *name, json_t *records,
			   struct pb_error *err);

/* A key figure of a point and its interval, as its record gives them (figures.c says how
 * each is found), for a reader that shows the figure beside its point. */
struct pb_figure_interval {
	double value, lo, hi;
	enum pb_unit unit;
	bool has_interval;
	const char *basis;      /* a sentence; NULL without an interval */
	unsigned n;             /* the runs the interval is from */
};
/* The bias deviation field ("max_deviation", or one attribution's "max_deviation_at_ip" /
 * "max_deviation_before_ip") of p; false when p has no such figure. */
bool pb_figure_bias_interval(const struct pb_result_point *p, const char *field,
			     struct pb_figure_interval *out);
/* p's overhead (overhead and buffer experiments) and its interval: its own (paired rounds),
 * else, for a file written before it had one, its and r's baseline point's means' CIs
 * propagated; r may be NULL (no fallback). false when p has none. */
enum pb_figure_overhead { PB_OVERHEAD_TIME, PB_OVERHEAD_CPU, PB_OVERHEAD_MEMORY };
bool pb_figure_overhead_interval(const struct pb_results *r, const struct pb_result_point *p,
				 enum pb_figure_overhead which, struct pb_figure_interval *out);
/* p's loss_pct; false when p has none. */
bool pb_figure_loss_interval(const struct pb_result_point *p, struct pb_figure_interval *out);

/* Adds what a fleet needs to tell machines apart to a probe document (pesbench-probe/1): the
 * host name and, where /proc/cpuinfo has one, the microcode revision. */
void pb_figures_identify_machine(json_t *probe);

/* A run id for a run starting now on this host: host, UTC time and process id. */
void pb_figures_new_run_id(char *buf, size_t len);

#endif
