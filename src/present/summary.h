/* The end of a run (and of `pesbench report`): the scorecard first, at most 100 columns wide,
 * what went wrong, and where every other figure is. */
#ifndef PB_SUMMARY_H
#define PB_SUMMARY_H

#include "io/result_model.h"
#include "util/text.h"

#include <stdio.h>

/* One scorecard entry's figures as short text, "" where the entry has none: what the terminal
 * and report.html both show. */
struct pb_scorecard_cells {
	char counts[64], attribution[64], loss[48], cost[96], overhead[32];
};
void pb_scorecard_cells(const struct pb_rset *entry, struct pb_scorecard_cells *cells);

/* results->scorecard must be filled (pb_scorecard_fill). */
void pb_summary_print(FILE *out, const struct pb_results *results);
/* Points that failed or lost something the scorecard does not name, per kind, with the first
 * one of each ("2 points FAILED, e.g. accuracy on timer: ..."), a line each to said: never
 * hidden, and never 400 lines. The summary prints them under the scorecard, report.html at its
 * top. */
typedef void pb_problem_fn(void *ctx, const char *line);
void pb_summary_problems(const struct pb_results *r, pb_problem_fn *said, void *ctx);

#endif
