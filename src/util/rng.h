/* The one pseudo-random generator: splitmix64 (Steele, Lea and Flood, 2014). Small, fast and
 * seedable, so a seed rebuilds exactly the same workload ring or random period sequence. Not
 * for anything that must be unpredictable. */
#ifndef PB_RNG_H
#define PB_RNG_H

#include <stdint.h>

struct pb_rng {
	uint64_t state;
};

static inline void pb_rng_seed(struct pb_rng *r, uint64_t seed)
{
	r->state = seed;
}

/* The next 64 random bits. */
uint64_t pb_rng_next(struct pb_rng *r);
/* A number in [0, n) (0 for n = 0) by multiply-high: no division, and a bias below n / 2^64. */
uint64_t pb_rng_below(struct pb_rng *r, uint64_t n);

#endif
