/* The results folder: results.json (versioned schema, docs/results.md, "Results schema") and
 * results.csv (one row per run). Both are written to a temporary file and renamed, so a file
 * that exists is whole; a run stopped early is written with "complete": false. */
#ifndef PB_RESULTS_H
#define PB_RESULTS_H

#include "io/result_model.h"
#include "util/error.h"

#include <jansson.h>
#include <stdbool.h>

/* /2 is /1 with a top-level "units" object: the unit of every field that has one, by name
 * (docs/results.md, "Results schema"). /1 files are still read, with the units /1 implied. */
#define PB_RESULTS_SCHEMA "pesbench-results/2"
#define PB_RESULTS_SCHEMA_V1 "pesbench-results/1"

/* Creates dir (and parents) if needed, checks it is writable, and starts an empty document. */
int pb_results_open(struct pb_results *r, const char *dir, int argc, char **argv,
		    struct pb_error *err);
/* Sets the machine from its probe document (pesbench-probe/1; borrowed). */
void pb_results_set_machine(struct pb_results *r, const json_t *machine);
/* Writes results.json and results.csv atomically, with whether every experiment ran and the
 * exit code the run ends with (1: a point failed, the run complete; docs/fleet.md). */
int pb_results_write(struct pb_results *r, bool complete, int exit_code, struct pb_error *err);
void pb_results_close(struct pb_results *r);
/* The document as results.json holds it (a new reference). */
json_t *pb_results_json(const struct pb_results *r);
/* One typed value as JSON, as results.json holds it (a new reference). */
json_t *pb_rvalue_json(const struct pb_rvalue *v);
/* The first field name that carries two different units in r (the "units" object can hold
 * only one), or NULL when there is none. */
const char *pb_results_unit_conflict(const struct pb_results *r);

/* The unit a pesbench-results/1 file's field of this name is read with (PB_UNIT_NONE for a
 * name without one). */
enum pb_unit pb_results_implied_unit(const char *name);

/* Loads a results.json (schema /2, or /1) into r; a file of another schema or a corrupt file is
 * PB_EXIT_BAD_FILE with a message saying which. */
int pb_results_load(const char *path, struct pb_results *r, struct pb_error *err);
/* The same checks on len bytes in memory; name stands for the file in messages. */
int pb_results_load_buffer(const char *data, size_t len, const char *name,
			   struct pb_results *r, struct pb_error *err);

/* Writes text to path through a temporary file in the same folder and a rename. */
int pb_write_atomic(const char *path, const char *text, size_t len, struct pb_error *err);

#endif
