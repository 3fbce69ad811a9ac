/* `compare`: the key figures of several runs — usually of several machines — side by side. The
 * input is figure records (io/figures.h) from results folders, results.json files or
 * concatenated results.jsonl files; a run is told by its run id, so one JSONL file may hold many
 * machines and the comparison is the same as from their folders.
 *
 * One table per experiment: a row per facility × figure × setting, a column per run, runs of one
 * CPU model next to each other. A facility is matched by its canonical spec, a precise one
 * (its descriptor's family says so) with whichever precise facility another machine has. A
 * setting that is one value in each run (say --delivery) is left out of the rows, so runs that
 * differ only in it line up, and the table says how they differ. Each cell other than the first
 * run's carries its delta to the first run and whether the delta exceeds both figures'
 * intervals. */
#ifndef PB_COMPARE_H
#define PB_COMPARE_H

#include "util/error.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

struct pb_compare;

struct pb_compare *pb_compare_new(void);
void pb_compare_free(struct pb_compare *c);

/* Adds the records of one argument: a results folder (its results.json), a results.json, or a
 * JSONL file of figure records. PB_EXIT_BAD_FILE for a missing or corrupt one. */
int pb_compare_add(struct pb_compare *c, const char *arg, struct pb_error *err);
/* Whether an argument is read as JSONL: anything but a folder or a .json file. */
bool pb_compare_is_jsonl(const char *arg);
/* Adds the records of JSONL text in memory (results.jsonl lines); name stands for it in
 * messages. */
int pb_compare_add_jsonl(struct pb_compare *c, const char *data, size_t len, const char *name,
			 struct pb_error *err);
/* Lines the records up; PB_EXIT_USAGE when they hold fewer than two runs. */
int pb_compare_build(struct pb_compare *c, struct pb_error *err);

/* The tables as text no wider than width columns (wide tables are split by runs). */
void pb_compare_print(FILE *out, const struct pb_compare *c, int width);
/* The comparison as JSON (a new reference). */
json_t *pb_compare_json(const struct pb_compare *c);
/* The comparison as a self-contained HTML page with a plot per experiment and figure. */
int pb_compare_write_html(const struct pb_compare *c, const char *path, struct pb_error *err);
/* Every record that was read, one a line: what results.jsonl would hold for the inputs. */
void pb_compare_print_records(FILE *out, const struct pb_compare *c);

#endif
