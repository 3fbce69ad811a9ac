/* The scorecard: per facility family, the answer a user came for — can I trust it on this
 * machine, for what, and what does a sample cost — computed from the typed results document
 * alone, so `report` and `compare` get the same answer from a results.json of another build or
 * machine. It is stored in the document (results->scorecard, written as the top-level
 * "scorecard" of results.json). The thresholds behind "use it for / not for" are derived in
 * docs/scorecard.md; this file and that one change together. */
#ifndef PB_SCORECARD_H
#define PB_SCORECARD_H

#include "io/result_model.h"

/* The names of a scorecard entry's figures, in the order they are shown; each is a set
 * {value, lo, hi, unit, resolved} (plus a note saying which row or point it comes from). */
extern const char *const pb_scorecard_figures[];

/* Replaces results->scorecard with one entry per facility family: every family the machine's
 * probe lists, then any other family a point or the skipped list names. */
void pb_scorecard_fill(struct pb_results *results);

/* The overhead a per-sample cost of ns_per_sample implies at rate_hz samples per second, in
 * percent of the run time: every second of work gets rate_hz × ns_per_sample ns more. */
double pb_scorecard_overhead_pct(double ns_per_sample, double rate_hz);

/* The largest deviation from an equal share that k equally likely targets still show, by
 * chance alone, in n samples at 95 % over all k together (Bonferroni: each share's two-sided
 * normal bound at 5 %/k), in percentage points. NaN when n or k is 0. */
double pb_scorecard_share_noise_pp(double n, unsigned k);

#endif
