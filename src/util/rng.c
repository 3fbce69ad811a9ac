#include "util/rng.h"

uint64_t pb_rng_next(struct pb_rng *r)
{
	uint64_t z = (r->state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

uint64_t pb_rng_below(struct pb_rng *r, uint64_t n)
{
	return (uint64_t)(((unsigned __int128)pb_rng_next(r) * n) >> 64);
}
