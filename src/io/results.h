/* The results folder: results.json (versioned schema, see README "Results schema") and
 * results.csv (one row per run). Both are written to a temporary file and renamed, so a file
 * that exists is whole; a run stopped early is written with "complete": false. */
#ifndef PB_RESULTS_H
#define PB_RESULTS_H

#include "util/error.h"

#include <jansson.h>
#include <stdbool.h>

#define PB_RESULTS_SCHEMA "pesbench-results/1"

struct pb_results {
	json_t *root;
	json_t *points;        /* root.points: one object per measured point */
	char dir[4096];
	double started;        /* CLOCK_REALTIME seconds */
};

/* Creates dir (and parents) if needed and checks it is writable. */
int pb_results_open(struct pb_results *r, const char *dir, int argc, char **argv,
		    struct pb_error *err);
/* Sets root.machine (takes the reference). */
void pb_results_set_machine(struct pb_results *r, json_t *machine);
/* Records a facility the suite could not run, with the reason. */
void pb_results_skip(struct pb_results *r, const char *facility, const char *reason);
/* Appends a point {experiment, facility, workload, ...} with an empty "runs" array and
 * "metrics" object, and returns it (borrowed). */
json_t *pb_results_point(struct pb_results *r, const char *experiment, const char *facility,
			 const char *workload);
/* Writes results.json and results.csv atomically. */
int pb_results_write(struct pb_results *r, bool complete, struct pb_error *err);
void pb_results_close(struct pb_results *r);

/* Loads a results.json, checking its schema; a file of another schema version or a corrupt
 * file is PB_EXIT_BAD_FILE with a message saying which. */
int pb_results_load(const char *path, json_t **root, struct pb_error *err);
/* The same checks on len bytes in memory; name stands for the file in messages. */
int pb_results_load_buffer(const char *data, size_t len, const char *name, json_t **root,
			   struct pb_error *err);

/* Writes text to path through a temporary file in the same folder and a rename. */
int pb_write_atomic(const char *path, const char *text, size_t len, struct pb_error *err);

#endif
