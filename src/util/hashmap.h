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

/* The value of (k0, k1), added with value 0 when absent (*added says which); NULL when out of
 * memory. The pointer is good until the next insertion. */
uint64_t *pb_hashmap_upsert(struct pb_hashmap *m, uint64_t k0, uint64_t k1, bool *added);
/* The value of (k0, k1), NULL when absent. */
uint64_t *pb_hashmap_find(const struct pb_hashmap *m, uint64_t k0, uint64_t k1);
void pb_hashmap_free(struct pb_hashmap *m);

/* Iteration: every slot with .used set, in no particular order. */
#define PB_HASHMAP_EACH(m, s)                                                                  \
	for (struct pb_hashmap_slot *s = (m)->slots; s < (m)->slots + (m)->cap; s++)           \
		if (s->used)

#endif
