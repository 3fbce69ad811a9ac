/* The machinery of the facilities' self-tests: run a tiny known loop under one event, counting
 * or sampling, and judge what came back. Each facility file says which loop, which target and
 * what the loop must produce; this file opens, runs, reads and words the verdict. */
#ifndef PB_SELFTEST_H
#define PB_SELFTEST_H

#include "facilities/facility.h"

#include <stdint.h>

struct pb_selftest_run {
	const struct pb_target *target; /* what the facility's attr() needs (may be NULL) */
	void (*loop)(void *arg, unsigned n);
	void *arg;
	unsigned n;              /* passed to loop */
	uint64_t expected;       /* counting: the events the loop produces, exactly */
	const char *what;        /* the loop's events, plural: "writes", "calls", "pages touched" */
	const char *accepted;    /* what the kernel accepted, plural: "breakpoints", "uprobes" */
	uint64_t period;         /* sampling only */
	uint64_t ip_lo, ip_hi;   /* sampling: the loop's code [lo, hi); 0, 0: not checked */
	unsigned aux_pages;      /* sampling: samples arrive in an AUX area of this many pages */
	uint64_t per_n;          /* pb_selftest_count_offset: the events each unit of n adds */
	bool all_levels;         /* the facility cannot exclude the kernel (IBS without swfilt) */
	uint64_t exact_ip;       /* sampling: every sample inside [ip_lo, ip_hi) must be at this
				  * address (the one instruction producing the event, where the
				  * facility promises the exact IP); 0: not checked */
};

/* Counts run->loop under spec and compares with run->expected. */
void pb_selftest_count(const struct pb_machine *m, const struct pb_spec *spec,
		       const struct pb_selftest_run *run, struct pb_self_test *out);
/* Counts run->loop at run->n (run->expected events) and at 2 run->n (run->per_n x run->n
 * more), for a counter that also counts a fixed number of events around the loop (the code
 * between the enabling ioctl and the loop, and back to the disabling one): the difference
 * must be the loop's exactly, and the fixed offset, measured by it, at least 0. Each length's
 * smallest count of up to 3 tries is kept (an interrupt only adds); the tries are in the text
 * and out->earlier. Derived in docs/numbers.md. */
void pb_selftest_count_offset(const struct pb_machine *m, const struct pb_spec *spec,
			      const struct pb_selftest_run *run, struct pb_self_test *out);
/* pb_selftest_count with every 4th event sampled and a signal delivered per sample to this
 * thread, as a measurement with signal delivery has them (a real-time signal per wakeup, or
 * attr.sigtrap's SIGTRAP where spec->sigtrap_per_sample): a facility whose
 * count changes when signals arrive (arm64 breakpoints under QEMU count one more per signal)
 * miscounts here. */
void pb_selftest_count_signalled(const struct pb_machine *m, const struct pb_spec *spec,
				 const struct pb_selftest_run *run, struct pb_self_test *out);
/* Where measured (the spec the facility will measure, or NULL) has a signal per sample and
 * out, a count's verdict, works: the run counted again under spec by
 * pb_selftest_count_signalled with measured's delivery, out becoming the whole ("counted:
 * ...; sampled: ... with a signal per sample"), the worse verdict winning. */
void pb_selftest_count_delivered(const struct pb_machine *m, const struct pb_spec *spec,
				 const struct pb_selftest_run *run, const struct pb_spec *measured,
				 struct pb_self_test *out);
/* pb_selftest_count, again up to most runs in all while it miscounts: a miscount is believed
 * when it happens every time. Every earlier run is kept in out->earlier and the text. */
void pb_selftest_count_retried(const struct pb_machine *m, const struct pb_spec *spec,
			       const struct pb_selftest_run *run, unsigned most,
			       struct pb_self_test *out);
/* Samples run->loop under spec at run->period: samples must arrive, floor(count/period) of
 * them within a two-sided bound derived in selftest.c (at least 44 due, else the loop runs
 * longer), and (when ip_lo/ip_hi are given) no more outside the loop than the bound. Where
 * spec->signal_per_sample, each sample also raises a real-time signal to this thread, as a
 * measurement with signal delivery has them: the same bounds hold with the handler running
 * inside the loop, and samples that raise no signal fail it. */
void pb_selftest_sample(const struct pb_machine *m, const struct pb_spec *spec,
			const struct pb_selftest_run *run, struct pb_self_test *out);
/* Folds one part of a facility's self-test (bp:w of bp) into its whole: the worst verdict
 * wins and every part's text is kept, prefixed with label. */
void pb_selftest_merge(struct pb_self_test *whole, const struct pb_self_test *part,
		       const char *label, bool first);

/* A capture's view of the sampling self-tests (pesbench capture keeps their records): begin
 * when a run's event is open, record for every record its ring gave, end with the run's
 * verdict. Set to NULL (the default) for none. */
struct pb_selftest_tap {
	void (*begin)(void *ctx, const struct pb_spec *spec, const struct perf_event_attr *attr,
		      const struct pb_selftest_run *run);
	void (*record)(void *ctx, const struct pb_record *rec);
	void (*end)(void *ctx, const struct pb_self_test *out);
	void *ctx;
};
void pb_selftest_set_tap(const struct pb_selftest_tap *tap);

/* A loop of known instructions: iterations x (decrement, branch back) + return. Its code lies
 * between pb_selftest_spin_begin and pb_selftest_spin_end. */
void pb_selftest_spin(uint64_t iterations);
extern const char pb_selftest_spin_begin[], pb_selftest_spin_end[];
/* The loop's closing branch: the only instruction of the loop that takes a branch. */
extern const char pb_selftest_spin_branch[];
uint64_t pb_selftest_spin_instructions(uint64_t iterations);
/* pb_selftest_run.loop for the spin loop: n x 1000 iterations. */
void pb_selftest_spin_loop(void *arg, unsigned n);
/* The iterations of the spin loop's last run through pb_selftest_spin_loop: what a fake
 * kernel's counter counts by. */
uint64_t pb_selftest_spin_last_iterations(void);

#endif

/* The self-test of a sampling PMU facility (PEBS, IBS, SPE, classic overflow): spec (NULL: the
 * facility parsed from default_text) samples the spin loop at the facility's default period for
 * about 64 periods of instructions; samples must arrive with their IPs inside the loop (for an
 * AUX facility: AUX data must arrive). */
void pb_selftest_sampling_pmu(const struct pb_machine *m, const struct pb_spec *spec,
			      const char *default_text, const char *accepted, bool all_levels,
			      struct pb_self_test *out);
