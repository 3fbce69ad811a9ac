/* The compact table printed at the end of a suite (and by `pesbench report`): one row per
 * point with accuracy over runs, losses and multiplexing, then the bias shares. */
#ifndef PB_SUMMARY_H
#define PB_SUMMARY_H

#include "io/result_model.h"

#include <stdio.h>

void pb_summary_print(FILE *out, const struct pb_results *results);

#endif
