#include "util/hashmap.h"

#include <stdlib.h>

int pb_hashmap_grow_(struct pb_hashmap *m)
{
	struct pb_hashmap bigger = {NULL, m->cap ? 2 * m->cap : 64, m->n};
	bigger.slots = calloc(bigger.cap, sizeof *bigger.slots);
	if (!bigger.slots)
		return -1;
	for (size_t i = 0; i < m->cap; i++)
		if (m->slots[i].used)
			*pb_hashmap_probe_(&bigger, m->slots[i].key[0], m->slots[i].key[1]) =
				m->slots[i];
	free(m->slots);
	*m = bigger;
	return 0;
}

void pb_hashmap_free(struct pb_hashmap *m)
{
	free(m->slots);
	*m = (struct pb_hashmap)PB_HASHMAP_INIT;
}
