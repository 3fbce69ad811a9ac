#include "analysis/periods.h"
#include "util/kit.h"

#include <stdio.h>
#include <string.h>

const char *pb_period_method_name(enum pb_period_method m)
{
	switch (m) {
	case PB_PERIOD_ROUND: return "round";
	case PB_PERIOD_PRIME: return "prime";
	case PB_PERIOD_RANDOM: return "random";
	}
	return "?";
}

int pb_period_method_parse(const char *text, enum pb_period_method *out, struct pb_error *err)
{
	static const enum pb_period_method all[] = {PB_PERIOD_ROUND, PB_PERIOD_PRIME,
						    PB_PERIOD_RANDOM};
	for (size_t i = 0; i < PB_ARRAY_SIZE(all); i++)
		if (text && !strcmp(text, pb_period_method_name(all[i]))) {
			*out = all[i];
			return 0;
		}
	return pb_fail(err, PB_EXIT_USAGE, 0,
		       "unknown period method '%s'; valid: round, prime, random", text ? text : "");
}

/* Deterministic Miller-Rabin: these bases decide every n < 2^64. */
static uint64_t mulmod(uint64_t a, uint64_t b, uint64_t m)
{
	return (uint64_t)((unsigned __int128)a * b % m);
}

static uint64_t powmod(uint64_t a, uint64_t e, uint64_t m)
{
	uint64_t r = 1;
	a %= m;
	while (e) {
		if (e & 1)
			r = mulmod(r, a, m);
		a = mulmod(a, a, m);
		e >>= 1;
	}
	return r;
}

bool pb_is_prime(uint64_t n)
{
	static const uint64_t bases[] = {2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37};
	if (n < 2)
		return false;
	for (size_t i = 0; i < PB_ARRAY_SIZE(bases); i++) {
		if (n == bases[i])
			return true;
		if (n % bases[i] == 0)
			return false;
	}
	uint64_t d = n - 1;
	unsigned s = 0;
	while (!(d & 1)) {
		d >>= 1;
		s++;
	}
	for (size_t i = 0; i < PB_ARRAY_SIZE(bases); i++) {
		uint64_t x = powmod(bases[i], d, n);
		if (x == 1 || x == n - 1)
			continue;
		bool composite = true;
		for (unsigned r = 1; r < s && composite; r++) {
			x = mulmod(x, x, n);
			if (x == n - 1)
				composite = false;
		}
		if (composite)
			return false;
	}
	return true;
}

uint64_t pb_next_prime(uint64_t n)
{
	if (n <= 2)
		return 2;
	uint64_t p = n | 1;
	while (!pb_is_prime(p))
		p += 2;
	return p;
}

void pb_period_rng_init(struct pb_period_rng *r, uint64_t base, uint64_t seed)
{
	pb_rng_seed(&r->rng, seed);
	r->base = base;
	r->lo = base - base / 2;
	r->hi = base + base / 2;
	if (r->lo < 1)
		r->lo = 1;
	if (r->hi < r->lo)
		r->hi = r->lo;
}

uint64_t pb_period_rng_next(struct pb_period_rng *r)
{
	return r->lo + pb_rng_below(&r->rng, r->hi - r->lo + 1);
}

int pb_period_setup_for(enum pb_period_method m, uint64_t base, struct pb_spec *spec,
		   struct pb_period_setup *setup, struct pb_error *err)
{
	if (!base)
		return pb_fail(err, PB_EXIT_USAGE, 0, "the period must be at least 1");
	memset(setup, 0, sizeof *setup);
	setup->method = m;
	setup->base = base;
	setup->initial = m == PB_PERIOD_PRIME ? pb_next_prime(base) : base;
	if (m != PB_PERIOD_RANDOM)
		return 0;
	int in_hardware = spec ? pb_spec_randomise_in_hardware(spec, err) : 0;
	if (in_hardware < 0)
		return -1;
	if (in_hardware) {
		setup->facility_random = true;
		return 0;
	}
	setup->ioctl_each_sample = true;
	return 0;
}

void pb_lbr_attr(struct perf_event_attr *attr)
{
	attr->sample_type |= PERF_SAMPLE_BRANCH_STACK;
	attr->branch_sample_type = PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_USER;
}

size_t pb_lbr_ranges(const struct pb_sample *s, uint64_t max_span, pb_lbr_range_fn fn,
		     void *ctx, size_t *skipped)
{
	size_t n = 0, bad = 0;
	if (!(s->sample_type & PERF_SAMPLE_BRANCH_STACK) || !s->branches || s->branch_nr < 2) {
		if (skipped)
			*skipped = 0;
		return 0;
	}
	/* Entry i is newer than entry i+1: the older branch landed at its target, ran straight
	 * on, and left at the newer branch's source. */
	for (uint64_t i = 0; i + 1 < s->branch_nr; i++) {
		struct perf_branch_entry newer, older;
		memcpy(&newer, s->branches + i * sizeof newer, sizeof newer);
		memcpy(&older, s->branches + (i + 1) * sizeof older, sizeof older);
		uint64_t begin = older.to, end = newer.from;
		if (end < begin || end - begin > max_span) {
			bad++;
			continue;
		}
		fn(ctx, begin, end);
		n++;
	}
	if (skipped)
		*skipped = bad;
	return n;
}

void pb_lbr_count_blocks(const struct pb_bb_table *t, uint64_t begin, uint64_t end,
			 uint64_t *counts)
{
	/* First block starting at or after begin, by bisection; blocks are sorted and disjoint. */
	size_t lo = 0, hi = t->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->bb[mid].begin < begin)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i < t->n && t->bb[i].begin <= end; i++)
		counts[i]++;
}
