/* The progress line of long work (`pesbench run`): a bar, the run in progress of the total,
 * the share done, the time elapsed and an estimate of the time left, and what runs now, in at
 * most 100 columns (fewer on a narrower terminal). Drawn only on a terminal: in a log the
 * line's carriage returns would pile up, so there the caller's own lines say what happened. */
#ifndef PB_PROGRESS_H
#define PB_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define PB_PROGRESS_MAX_WIDTH 100

struct pb_progress {
	FILE *out;
	bool draw;             /* out is a terminal and the caller wants the line */
	bool drawn;            /* a line is on the screen now */
	unsigned started_runs; /* runs begun */
	unsigned total;        /* runs expected; grows when more are begun */
	uint64_t start_ns;
	unsigned width;        /* columns to use */
};

/* total is an estimate; draw: whether to show the line at all (false: --quiet, a log). */
void pb_progress_start(struct pb_progress *p, FILE *out, bool draw, unsigned total);
/* One more run begins: what it is, one line ("cost timer:cpu-clock period 100000 ..."). */
void pb_progress_step(struct pb_progress *p, const char *what);
/* runs more (or fewer, negative) than the total said: the estimate is corrected, never below
 * the runs already begun. */
void pb_progress_more(struct pb_progress *p, int runs);
/* Takes the line off the screen, so a message can be printed; the next step redraws it. */
void pb_progress_clear(struct pb_progress *p);
/* The work is over: the line at 100 % (every run begun is done), kept on the screen. */
void pb_progress_finish(struct pb_progress *p);

/* The line itself, for the runs done of total after elapsed_s seconds, at most width columns:
 * "[#####.......]  40/98  41 %  0:12, ~0:17 left  what". The time left is at the pace so far:
 * a pace smoothed over the latest 40, 100 or 200 runs was tried on three default suites'
 * progress (kind C) and was no nearer (mean errors of 36-45 s against 36-37 s) and up to six
 * times as jumpy, as runs differ by experiment as much as by facility. */
void pb_progress_format(char *buf, size_t len, unsigned done, unsigned total, double elapsed_s,
			const char *what, unsigned width);

#endif
