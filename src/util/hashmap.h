/* A small hash map from a key of two 64-bit words to a 64-bit value: open addressing with linear
 * probing, grown to twice its size at half load, so a lookup touches one or two slots. The
 * sample histograms (per event and IP, per object and function) key by it. */
#ifndef PB_HASHMAP_H
#define PB_HASHMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pb_hashmap_slot {
	uint64_t key[2];
	uint64_t value;
	bool used;
};

struct pb_hashmap {
	struct pb_hashmap_slot *slots;   /* cap slots, cap a power of two (or 0) */
	size_t cap, n;
};

/* Zero-initialised is an empty map. */
#define PB_HASHMAP_INIT {NULL, 0, 0}

/* The slot where a search for (k0, k1) starts (m->cap > 0). */
static inline size_t pb_hashmap_home_(const struct pb_hashmap *m, uint64_t k0, uint64_t k1)
{
	/* murmur3's finaliser over both words: every key bit moves every bit of the index, so
	 * keys that differ only in high bits (addresses of one page, events) still spread. (Two
	 * multiplications and the product's top bits spread as well, for 3 instructions less per
	 * sample of `perfdata --histogram`, about 1.4 % of them: not worth a change.) */
	uint64_t x = k0 ^ (k1 * UINT64_C(0x9e3779b97f4a7c15));
	x ^= x >> 33;
	x *= UINT64_C(0xff51afd7ed558ccd);
	x ^= x >> 33;
	x *= UINT64_C(0xc4ceb9fe1a85ec53);
	x ^= x >> 33;
	return (size_t)x & (m->cap - 1);
}

/* Where (k0, k1) is or would go. Inline, like the two below: the histograms call them once per
 * sample, and a call's cost was a fifth of `pesbench perfdata --histogram`'s time. */
static inline struct pb_hashmap_slot *pb_hashmap_probe_(const struct pb_hashmap *m, uint64_t k0,
							uint64_t k1)
{
	size_t mask = m->cap - 1, i = pb_hashmap_home_(m, k0, k1);
	while (m->slots[i].used && (m->slots[i].key[0] != k0 || m->slots[i].key[1] != k1))
		i = (i + 1) & mask;
	return &m->slots[i];
}

/* Doubles the map; -1 when out of memory. */
int pb_hashmap_grow_(struct pb_hashmap *m);

/* The value of (k0, k1), added with value 0 when absent (*added says which); NULL when out of
 * memory. The pointer is good until the next insertion. */
static inline uint64_t *pb_hashmap_upsert(struct pb_hashmap *m, uint64_t k0, uint64_t k1,
					  bool *added)
{
	if (2 * (m->n + 1) > m->cap && pb_hashmap_grow_(m))
		return NULL;
	struct pb_hashmap_slot *s = pb_hashmap_probe_(m, k0, k1);
	*added = !s->used;
	if (!s->used) {
		s->used = true;
		s->key[0] = k0;
		s->key[1] = k1;
		s->value = 0;
		m->n++;
	}
	return &s->value;
}

/* The value of (k0, k1), NULL when absent. */
static inline uint64_t *pb_hashmap_find(const struct pb_hashmap *m, uint64_t k0, uint64_t k1)
{
	if (!m->cap)
		return NULL;
	struct pb_hashmap_slot *s = pb_hashmap_probe_(m, k0, k1);
	return s->used ? &s->value : NULL;
}

void pb_hashmap_free(struct pb_hashmap *m);

/* Iteration: every slot with .used set, in no particular order. */
#define PB_HASHMAP_EACH(m, s)                                                                  \
	for (struct pb_hashmap_slot *s = (m)->slots; s < (m)->slots + (m)->cap; s++)           \
		if (s->used)

#endif
