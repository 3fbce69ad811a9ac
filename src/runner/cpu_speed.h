/* How fast each CPU runs one fixed loop, timed now and again while the suite runs. A virtual
 * CPU can run slower for minutes while its host core serves other work, and no time is counted
 * as stolen (2026-11-28, kind B: the same loop took 2.8 times as long on one vCPU as on the
 * other, steal 0.000 %, and the slow one changed from minute to minute). What the suite
 * measured on that CPU then may have moved with it, sampled or not, a cost in ns too (the
 * timer's moved from 43 to 54 µs over four suites of that hour). This says so with figures,
 * instead of leaving the figures to move without a cause. */
#ifndef PB_CPU_SPEED_H
#define PB_CPU_SPEED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Each probe times the loop this many times in a row on its CPU. Five, so that two probes whose
 * times do not overlap at all (all five of one above all five of the other) happen by chance
 * 1 time in C(10, 5) = 252 when the CPU ran at one speed: Mann-Whitney's U = 0. */
#define PB_SPEED_REPEATS 5
#define PB_SPEED_MAX_PROBES 512
/* A probe is counted slower when, besides not overlapping the reference, its median took more
 * than this much longer than the reference's: the precision a cost fit must reach to resolve
 * (±10 %), so that a slower CPU is flagged when it could move a resolved cost past its own
 * interval, and not for a difference that no figure here could show. */
#define PB_SPEED_SLOWER 0.10

struct pb_speed_probe {
	unsigned cpu;
	double at_s;                          /* since the watch started */
	double rep_ns[PB_SPEED_REPEATS];      /* thread CPU time of each loop */
	bool pinned;                          /* false: the CPU was refused; not counted */
};

struct pb_speed_watch {
	struct pb_speed_probe probe[PB_SPEED_MAX_PROBES];
	unsigned n;
	uint64_t started_ns;
};

void pb_speed_watch_start(struct pb_speed_watch *w);
/* Times the loop on every CPU online, while there is room for it; the calling thread's CPUs
 * are given back afterwards. */
void pb_speed_watch_probe(struct pb_speed_watch *w);

struct pb_speed_summary {
	unsigned probes, cpus;                /* probes counted, and the CPUs they ran on */
	unsigned slower;                      /* probes slower than the fastest (the rule above) */
	double slowest_ratio;                 /* the largest median over the reference's */
	unsigned slowest_cpu;
	double slowest_at_s;
	double slower_from_s, slower_to_s;    /* the span of the slower probes */
	unsigned slower_cpus;                 /* how many CPUs had a slower probe */
	bool valid;                           /* at least two probes */
};

/* The reference is the probe, of any CPU, whose slowest loop was the fastest: the cleanest of
 * the fast. A probe is slower than it when its median is more than PB_SPEED_SLOWER above the
 * reference's, and all its loops took longer than all the reference's. */
void pb_speed_summarize(const struct pb_speed_watch *w, struct pb_speed_summary *out);
/* "A fixed loop took up to 2.8 times its fastest time on CPU 1 (9 of 56 probes, 35 to 80 s
 * into the suite): ...", "... took at most 1.04 times its fastest time: no CPU ran more than
 * 10 % slower.", or, when the slowest probe's median was more than 10 % over but one of its own
 * loops ran as fast as the fastest probe's, that the speed changed within that probe. */
void pb_speed_text(const struct pb_speed_summary *s, char *buf, size_t len);

#endif
