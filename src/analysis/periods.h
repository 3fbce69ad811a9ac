/* Sampling period methods (Nowak et al.): a round period, the next prime at or above it, and a
 * randomised period drawn anew after every sample — uniformly in [P/2, 3P/2] through
 * PERF_EVENT_IOC_PERIOD, or by the facility itself where its hardware randomises (its randomise_in_hardware hook).
 * Periodic sampling of a periodic program can lock onto one phase of its loop; a prime period
 * makes that unlikely, a random one makes it impossible.
 *
 * And the LBR method: sampling taken branches with the last-branch record
 * (PERF_SAMPLE_BRANCH_STACK, any branch, user level) and counting every basic block between a
 * branch target and the next branch source as executed once. Hardware only (Intel LBR, AMD
 * BRS/LbrExtV2); here it is built and tested through the fake kernel. */
#ifndef PB_PERIODS_H
#define PB_PERIODS_H

#include "analysis/profile.h"
#include "facilities/facility.h"
#include "ring/record.h"
#include "util/error.h"
#include "util/rng.h"

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum pb_period_method { PB_PERIOD_ROUND, PB_PERIOD_PRIME, PB_PERIOD_RANDOM };

const char *pb_period_method_name(enum pb_period_method m);
/* "round", "prime", "random"; anything else is a usage error naming the three. */
int pb_period_method_parse(const char *text, enum pb_period_method *out, struct pb_error *err);

bool pb_is_prime(uint64_t n);
/* The smallest prime >= n (2 for n <= 2). */
uint64_t pb_next_prime(uint64_t n);

/* A random period source: a seed reproduces a sequence. */
struct pb_period_rng {
	struct pb_rng rng;
	uint64_t base;       /* P */
	uint64_t lo, hi;     /* [P - P/2, P + P/2], lo >= 1 */
};
void pb_period_rng_init(struct pb_period_rng *r, uint64_t base, uint64_t seed);
uint64_t pb_period_rng_next(struct pb_period_rng *r);

/* How a method is put into practice for one facility and base period P. */
struct pb_period_setup {
	enum pb_period_method method;
	uint64_t base;           /* P as the user gave it */
	uint64_t initial;        /* the period the event opens with */
	bool ioctl_each_sample;  /* random: a new period after each sample via IOC_PERIOD */
	bool facility_random;    /* random: the facility randomises (spec rewritten to say so) */
};
/* Fills setup and, for the random method on a facility with its own randomisation, rewrites
 * spec to enable it. Fails for P == 0. */
int pb_period_setup_for(enum pb_period_method m, uint64_t base, struct pb_spec *spec,
		   struct pb_period_setup *setup, struct pb_error *err);

/* ---- LBR ---- */

/* Adds the last-branch record to a sampling attr: every branch kind, user level only. */
void pb_lbr_attr(struct perf_event_attr *attr);

/* One straight-line stretch the LBR proves executed once: from a branch target `begin` up to
 * and including the branch at `end`. */
typedef void (*pb_lbr_range_fn)(void *ctx, uint64_t begin, uint64_t end);
/* Walks a sample's branch stack (most recent entry first, as the kernel writes it): for each
 * pair of consecutive entries, the code from the older entry's target to the newer entry's
 * source ran without a taken branch. Ranges that run backwards or longer than max_span bytes
 * (a stack the kernel or hardware broke, an interrupt in between) are skipped and counted.
 * Returns the number of ranges reported. */
size_t pb_lbr_ranges(const struct pb_sample *s, uint64_t max_span, pb_lbr_range_fn fn,
		     void *ctx, size_t *skipped);

/* Adds one execution to every block of t that starts within [begin, end] (counts[t->n]):
 * the LBR estimate of block counts, one range at a time. */
void pb_lbr_count_blocks(const struct pb_bb_table *t, uint64_t begin, uint64_t end,
			 uint64_t *counts);

#endif
