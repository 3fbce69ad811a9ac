/* A cost fit's rate model (analysis/stats.h, struct pb_rate_model) as a results document
 * carries it: `rate_ref_period`, `rate_top_period`, `rate_ns_at_ref` and `rate_ns_per_decade`
 * with their standard errors (`_se`), `rate_correlation`, `rate_t95` and `rate_dependent`,
 * among the fit point's metrics (experiments/cost_fit.c writes them). Read by plan --costs and
 * the scorecard. */
#ifndef PB_IO_RATE_MODEL_H
#define PB_IO_RATE_MODEL_H

#include "analysis/stats.h"
#include "io/result_model.h"

#include <stdbool.h>

/* rm from metrics: fitted (and true returned) only when every figure is there, a number, and
 * sane (periods 1 to 1e18, standard errors not negative, a correlation within ±1, t above 0);
 * otherwise rm is all zero (not fitted) and false is returned. */
bool pb_rate_model_read(const struct pb_rset *metrics, struct pb_rate_model *rm);

#endif
