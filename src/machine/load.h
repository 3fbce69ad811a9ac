/* What else the machine was doing while pesbench measured: the CPU time other work took and
 * what the hypervisor withheld (steal), from the kernel's tick counts in <root>/proc/stat.
 * A suite beside a busy neighbour is noisier and its runs get less of a CPU; this says so with
 * a figure, instead of leaving the user to guess from the noise. */
#ifndef PB_MACHINE_LOAD_H
#define PB_MACHINE_LOAD_H

#include "machine/machine.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The first ("cpu ") line of /proc/stat: every CPU's time since boot by kind, in the kernel's
 * clock ticks (USER_HZ). user includes guest time, as the kernel counts it. */
struct pb_cpu_ticks {
	uint64_t user, nice, system, idle, iowait, irq, softirq, steal;
	bool valid;
};

/* Parses /proc/stat's text (its first line is enough). Returns 0, or -1 with out->valid false
 * when the text does not start with a "cpu " line of at least four numbers (user, nice,
 * system, idle; later fields are 0 where a kernel does not have them). */
int pb_cpu_ticks_parse(const char *text, struct pb_cpu_ticks *out);
/* The machine's ticks now (<root>/proc/stat; m NULL: this machine); out->valid false when
 * unreadable. */
void pb_machine_cpu_ticks(const struct pb_machine *m, struct pb_cpu_ticks *out);

/* Other work beside a span of measuring: between two tick readings, the CPUs the rest of the
 * machine kept busy on average (user, nice and system time less this process's own CPU time,
 * its reaped children's included) and the share of all CPU time stolen by the hypervisor.
 * Each 95 % interval is the tick counts' own: a tick charges a whole tick to whatever it
 * interrupts, so a kind's count is a binomial sample of the ticks (1.96 sqrt(N p (1 - p))), and
 * each reading may be a tick off on every CPU. */
struct pb_machine_load {
	double other_cpus, other_cpus_ci95;
	double steal_pct, steal_ci95_pp;
	/* the machine's online CPUs when known, else those the ticks cover on average over the
	 * span (a span of a few ticks rounds that to a CPU more or less) */
	double cpus;
	double seconds;
	bool valid;              /* both readings valid, the ticks moved, the span > 0 */
};
void pb_machine_load_between(const struct pb_cpu_ticks *start, const struct pb_cpu_ticks *end,
			     double own_cpu_s, double seconds, long ticks_per_s,
			     unsigned online_cpus, struct pb_machine_load *out);
/* "other work kept 0.96 ±0.0094 of the 2 CPUs busy, and the hypervisor withheld 0.018 ±0.030 %
 * of CPU time (steal)": each figure to its interval's second significant digit; over a span
 * whose interval is as wide as the machine, that the ticks tell nothing, with the intervals. */
void pb_machine_load_text(const struct pb_machine_load *load, char *buf, size_t len);
/* Other work beside a command from its start to now (pb_machine_load_since). */
struct pb_load_watch {
	struct pb_cpu_ticks ticks;
	double own_cpu_s;
	uint64_t started_ns;
};
void pb_machine_load_watch(const struct pb_machine *m, struct pb_load_watch *w);
void pb_machine_load_since(const struct pb_machine *m, const struct pb_load_watch *w,
			   struct pb_machine_load *out);
/* This process's CPU time so far, its threads' and its reaped children's, in seconds. */
double pb_process_cpu_s(void);

#endif
