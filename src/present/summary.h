/* The compact table printed at the end of a suite (and by `pesbench report`): one row per
 * point with accuracy over runs, losses and multiplexing, then the bias shares. */
#ifndef PB_SUMMARY_H
#define PB_SUMMARY_H

#include <jansson.h>
#include <stdio.h>

void pb_summary_print(FILE *out, json_t *results);

#endif
