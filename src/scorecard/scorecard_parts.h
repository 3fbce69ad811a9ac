/* What the scorecard's parts share: reading points of a family, and writing an entry's figures
 * and its "use it for / not for" line. scorecard.c decides the entry; scorecard_cost.c its
 * cost, its rates and the timing noise they are held against. */
#ifndef PB_SCORECARD_PARTS_H
#define PB_SCORECARD_PARTS_H

#include "io/result_model.h"

#include <stdbool.h>
#include <stddef.h>

struct verdict_parts {
	char use[400], not_for[480];
	char besides[240];           /* what the use and its limits leave out, said after them */
};

/* Whether a point's facility is of the family ("timer" for "timer:cpu-clock"). */
bool pb_scorecard_in_family(const struct pb_result_point *p, const char *family);
bool pb_scorecard_is_experiment(const struct pb_result_point *p, const char *name);
/* "events" or "ns": what a point's period counts, by its traits. */
const char *pb_scorecard_period_unit(const struct pb_result_point *p);
/* Sets the entry's figure name to {value, lo, hi, unit, resolved, note}; returns it, for a
 * figure that says more. */
struct pb_rset *pb_scorecard_figure(struct pb_rset *entry, const char *name, double value,
				    double lo, double hi, const char *unit, bool resolved,
				    const char *note);
/* Adds text to a "use" or "not for" list, after a comma when it holds something. */
void pb_scorecard_add_part(char *buf, size_t len, const char *text);

/* The entry's cost figures (per sample, per event, what the suite's programs paid, the
 * overhead at 1 and 10 kHz, the sampling rate the timing noise hides) and the rate it can be
 * used up to, on its "use" line. */
void pb_scorecard_cost_part(struct pb_rset *e, const struct pb_results *r, const char *family,
			    struct verdict_parts *v);

#endif
