/* One measurement in a forked child. Memory overhead is the peak resident set of the process
 * that was measured, so every overhead run happens in a child of its own and the parent reads
 * the child's peak RSS from wait4's rusage (ru_maxrss) — never pesbench's own. The child hands
 * its figures back through a pipe; a child that crashes or is killed is reported as such. */
#ifndef PB_CHILD_H
#define PB_CHILD_H

#include "util/error.h"

#include <stdint.h>

#define PB_CHILD_MAX_FIGURES 32

struct pb_child_result {
	double figures[PB_CHILD_MAX_FIGURES];  /* what the child's function wrote */
	unsigned nfigures;
	uint64_t maxrss_kib;                   /* the child's peak RSS (ru_maxrss, KiB) */
	double user_s, system_s;               /* the child's CPU time */
};

/* Runs in the child: writes up to max figures and sets *n; returns 0 or -1 with err. */
typedef int (*pb_child_fn)(void *ctx, double *figures, unsigned max, unsigned *n,
			   struct pb_error *err);

/* Forks, runs fn in the child, waits for it. Returns 0 with out filled, or -1 with err: fn's
 * own error, or the child's death (signal, exit without a report). */
int pb_child_run(pb_child_fn fn, void *ctx, struct pb_child_result *out, struct pb_error *err);

/* One point (experiments/point.h) measured in a child: its figures for event 0, summed over
 * threads, and the child's peak RSS. */
struct pb_point_request;
struct pb_child_point {
	uint64_t wall_ns;
	uint64_t cpu_ns;             /* the measured threads' CPU time across the region, summed */
	uint64_t observed, lost, signals, throttles, count;
	double expected;
	uint64_t ring_pages;
	uint64_t maxrss_kib;
};
int pb_child_measure_point(const struct pb_point_request *req, struct pb_child_point *out,
			   struct pb_error *err);

/* This process's own peak RSS (KiB), for comparison in tests and reports. */
uint64_t pb_self_maxrss_kib(void);

#endif
