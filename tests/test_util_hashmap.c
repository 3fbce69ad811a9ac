/* The small hash map: values found again after growth, keys that differ in one word apart,
 * iteration over every entry once, against a plain array as the reference; and the hash spreads
 * the key sets of a histogram (one page of IPs, IPs far apart, IPs that differ only in their
 * high bits, several events) so that a search starts on average within two slots of its key. */
#include "check.h"
#include "util/hashmap.h"
#include "util/rng.h"

#include <stdio.h>

#define N 20000

static uint64_t keys[N][2];
static uint64_t want[N];

/* Mean distance from each key's home slot to its slot, in hundredths, for 2048 keys (event
 * e < 4, address base + j * stride). */
static uint64_t mean_displacement(uint64_t base, uint64_t stride)
{
	struct pb_hashmap m = PB_HASHMAP_INIT;
	for (uint64_t e = 0; e < 4; e++)
		for (uint64_t j = 0; j < 512; j++) {
			bool added;
			if (!pb_hashmap_upsert(&m, e, base + j * stride, &added))
				return UINT64_MAX;
		}
	uint64_t total = 0;
	size_t mask = m.cap - 1;
	PB_HASHMAP_EACH(&m, s)
		total += ((size_t)(s - m.slots) - pb_hashmap_home_(&m, s->key[0], s->key[1])) & mask;
	uint64_t mean = m.n == 2048 ? total * 100 / m.n : UINT64_MAX;
	pb_hashmap_free(&m);
	return mean;
}

int main(void)
{
	struct pb_hashmap m = PB_HASHMAP_INIT;
	CHECK(pb_hashmap_find(&m, 1, 2) == NULL);

	/* Keys close together (one page of IPs, two events) and far apart, some repeated. */
	struct pb_rng r;
	pb_rng_seed(&r, 5);
	size_t distinct = 0;
	bool ok = true;
	for (size_t i = 0; i < N; i++) {
		uint64_t k0, k1;
		if (i % 3 == 0)
			k0 = 0x401000 + (i % 4096), k1 = i % 2;
		else
			k0 = pb_rng_next(&r), k1 = pb_rng_below(&r, 4);
		bool added;
		uint64_t *v = pb_hashmap_upsert(&m, k0, k1, &added);
		if (!v) {
			ok = false;
			break;
		}
		size_t j = 0;
		if (added) {
			ok = ok && *v == 0;
			j = distinct++;
			keys[j][0] = k0;
			keys[j][1] = k1;
		} else {
			while (j < distinct && (keys[j][0] != k0 || keys[j][1] != k1))
				j++;
			ok = ok && j < distinct;
		}
		*v += i + 1;
		want[j] += i + 1;
	}
	CHECK(ok);
	CHECK_EQ_U64(m.n, distinct);
	CHECK(distinct > N / 2 && distinct < N);   /* both repeats and growth happened */
	CHECK(m.cap >= 2 * m.n);                    /* never above half load */

	unsigned found = 0;
	for (size_t j = 0; j < distinct; j++) {
		uint64_t *v = pb_hashmap_find(&m, keys[j][0], keys[j][1]);
		found += v && *v == want[j];
	}
	CHECK_EQ_U64(found, distinct);
	/* the same first word with another second word is another key */
	CHECK(pb_hashmap_find(&m, 0x401000, 7) == NULL);
	CHECK(pb_hashmap_find(&m, 0x400fff, 0) == NULL);

	size_t visited = 0;
	uint64_t sum = 0, want_sum = 0;
	PB_HASHMAP_EACH(&m, s) {
		visited++;
		sum += s->value;
	}
	for (size_t j = 0; j < distinct; j++)
		want_sum += want[j];
	CHECK_EQ_U64(visited, distinct);
	CHECK_EQ_U64(sum, want_sum);

	pb_hashmap_free(&m);
	CHECK(m.slots == NULL && m.n == 0 && m.cap == 0);

	/* at most half full, a uniform hash keeps linear probing's mean distance near 0.5 slots */
	static const uint64_t strides[][2] = {{0x401000, 1},		     {0x401000, 4},
					      {0x401000, 64},		     {0x7f0000000000, 4096},
					      {0xffffffff81000000, 1 << 20}, {0, UINT64_C(1) << 40},
					      {1, UINT64_C(1) << 53}};
	for (size_t i = 0; i < sizeof strides / sizeof strides[0]; i++) {
		uint64_t d = mean_displacement(strides[i][0], strides[i][1]);
		if (d >= 200)
			fprintf(stderr, "base %#llx stride %#llx: mean displacement %llu/100\n",
				(unsigned long long)strides[i][0], (unsigned long long)strides[i][1],
				(unsigned long long)d);
		CHECK(d < 200);
	}
	CHECK(pb_hashmap_find(&m, keys[0][0], keys[0][1]) == NULL);
	return pb_check_done("util_hashmap");
}
