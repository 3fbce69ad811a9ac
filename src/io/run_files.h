/* The files of one `pesbench run` folder beside results.json: whether a folder already holds
 * an earlier run's, the machine and run identity every record carries, and results.jsonl. The
 * command keeps its options and its terminal; the formats stay in this layer. */
#ifndef PB_RUN_FILES_H
#define PB_RUN_FILES_H

#include "facilities/machine.h"
#include "io/result_model.h"
#include "util/error.h"

#include <stddef.h>

/* "results/<UTC time>" in buf: the folder of a run given no --out. */
const char *pb_run_files_default_dir(char *buf, size_t len);
/* Fails (exit 4) when dir already holds a file of an earlier run (results.json,
 * results.jsonl, results.csv, report.html, plots): writing another run there would leave a
 * mix (old plots beside new results, or a report of the old run named as the new one's). */
int pb_run_files_check_new(const char *dir, struct pb_error *err);
/* Sets res's machine (m probed, with its identity) and a new run id. */
void pb_run_files_identify(struct pb_results *res, const struct pb_machine *m);
/* results.jsonl: the figure records, then the "done" record of exit code rc a fleet waits
 * for. The records come from results.json as written, so they are what `compare` reads from
 * the folder, and are labelled as compare labels the folder. */
int pb_run_files_write_records(const struct pb_results *res, int rc, struct pb_error *err);

#endif
