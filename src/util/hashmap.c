#include "util/hashmap.h"

#include <stdlib.h>

/* murmur3's finaliser: every key bit moves every bit of the slot index, so keys that differ
 * only in high bits (addresses of one page, events in the top bits) still spread. */
static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= UINT64_C(0xff51afd7ed558ccd);
	x ^= x >> 33;
	x *= UINT64_C(0xc4ceb9fe1a85ec53);
	return x ^ (x >> 33);
}

static size_t home(uint64_t k0, uint64_t k1, size_t cap)
{
	return (size_t)mix(k0 ^ mix(k1)) & (cap - 1);
}

static struct pb_hashmap_slot *probe(struct pb_hashmap_slot *slots, size_t cap, uint64_t k0,
				     uint64_t k1)
{
	size_t i = home(k0, k1, cap);
	while (slots[i].used && (slots[i].key[0] != k0 || slots[i].key[1] != k1))
		i = (i + 1) & (cap - 1);
	return &slots[i];
}

static int grow(struct pb_hashmap *m)
{
	size_t cap = m->cap ? 2 * m->cap : 64;
	struct pb_hashmap_slot *slots = calloc(cap, sizeof *slots);
	if (!slots)
		return -1;
	for (size_t i = 0; i < m->cap; i++)
		if (m->slots[i].used)
			*probe(slots, cap, m->slots[i].key[0], m->slots[i].key[1]) = m->slots[i];
	free(m->slots);
	m->slots = slots;
	m->cap = cap;
	return 0;
}

uint64_t *pb_hashmap_upsert(struct pb_hashmap *m, uint64_t k0, uint64_t k1, bool *added)
{
	if (2 * (m->n + 1) > m->cap && grow(m))
		return NULL;
	struct pb_hashmap_slot *s = probe(m->slots, m->cap, k0, k1);
	bool fresh = !s->used;
	if (fresh) {
		s->used = true;
		s->key[0] = k0;
		s->key[1] = k1;
		s->value = 0;
		m->n++;
	}
	if (added)
		*added = fresh;
	return &s->value;
}

uint64_t *pb_hashmap_find(const struct pb_hashmap *m, uint64_t k0, uint64_t k1)
{
	if (!m->cap)
		return NULL;
	struct pb_hashmap_slot *s = probe(m->slots, m->cap, k0, k1);
	return s->used ? &s->value : NULL;
}

void pb_hashmap_free(struct pb_hashmap *m)
{
	free(m->slots);
	*m = (struct pb_hashmap)PB_HASHMAP_INIT;
}
