/* The small hash map: values found again after growth, keys that differ in one word apart,
 * iteration over every entry once, against a plain array as the reference. */
#include "check.h"
#include "util/hashmap.h"
#include "util/rng.h"

#define N 20000

static uint64_t keys[N][2];
static uint64_t want[N];

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
	CHECK(pb_hashmap_find(&m, keys[0][0], keys[0][1]) == NULL);
	return pb_check_done("util_hashmap");
}
