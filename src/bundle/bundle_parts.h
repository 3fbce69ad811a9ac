/* What capture and replay share and nobody else needs. */
#ifndef PB_BUNDLE_PARTS_H
#define PB_BUNDLE_PARTS_H

#include "bundle/bundle.h"
#include "experiments/point.h"

/* The figures of struct pb_bundle_reading copied as they are to and from a thread's
 * struct pb_event_result (open_error, a string, is copied beside them). */
#define PB_BUNDLE_READING_FIELDS(X)                                                            \
	X(opened) X(ring_pages) X(has_lost_format) X(lost_format) X(count) X(time_enabled)    \
	X(time_running) X(signals) X(signals_wrong_thread)

/* The results a bundle stores for a point, and a replay computes again: each event's figures
 * as the results document records them (the run's timings left out: no record carries them),
 * and the samples at and right after each instruction of the workload's code that holds a
 * label or a sample. Instructions are named by address and length, not by capstone's text,
 * which another capstone version may spell otherwise. */
json_t *pb_bundle_results_json(const struct pb_point_request *req, const struct pb_point *pt);

#endif
