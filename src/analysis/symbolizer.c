/* The sample histogram and the symbolizer `perfdata` and `profile` share: an IP of a process
 * to its object, its link-time address and "symbol+offset (object)". */
#include "analysis/profile.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the histogram ---- */

static int cmp_hist_row(const void *a, const void *b)
{
	const struct pb_hist_row *x = a, *y = b;
	if (x->group != y->group)
		return x->group < y->group ? -1 : 1;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

void pb_histogram_sort(struct pb_histogram *h)
{
	if (h->sorted)
		return;
	if (h->n) /* a histogram of no samples has no rows: qsort's base must not be NULL */
		qsort(h->rows, h->n, sizeof *h->rows, cmp_hist_row);
	/* The index points at the old places: adding ends, and its memory goes. */
	pb_hashmap_free(&h->index);
	h->sorted = true;
}

void pb_histogram_free(struct pb_histogram *h)
{
	pb_hashmap_free(&h->index);
	free(h->rows);
	memset(h, 0, sizeof *h);
}

/* ---- the symbolizer ---- */

int pb_symbolizer_add_map(struct pb_symbolizer *sy, uint32_t pid, uint64_t start, uint64_t len,
			  uint64_t pgoff, const char *path)
{
	char *copy;
	if (pb_grow(&sy->maps, &sy->maps_cap, sy->nmaps, sizeof *sy->maps, 64) ||
	    !(copy = strdup(path)))
		return -1;
	sy->maps[sy->nmaps++] =
		(struct pb_sym_map){.pid = pid, .start = start, .len = len, .pgoff = pgoff, .path = copy};
	return 0;
}

long pb_symbolizer_object(struct pb_symbolizer *sy, const char *path)
{
	for (size_t i = 0; i < sy->nobjects; i++)
		if (!strcmp(sy->objects[i].path, path))
			return (long)i;
	if (pb_grow(&sy->objects, &sy->objects_cap, sy->nobjects, sizeof *sy->objects, 16))
		return -1;
	struct pb_sym_object *o = &sy->objects[sy->nobjects];
	o->path = strdup(path);
	if (!o->path)
		return -1;
	struct pb_error err;
	if (pb_prof_object_open(path, &o->object, &err))
		o->object = NULL;
	return (long)sy->nobjects++;
}

const struct pb_sym_map *pb_symbolizer_map(const struct pb_symbolizer *sy, uint32_t pid,
					   uint64_t ip)
{
	for (size_t k = sy->nmaps; k-- > 0;) {
		const struct pb_sym_map *m = &sy->maps[k];
		if ((m->pid == pid || m->pid == UINT32_MAX) && ip >= m->start && ip - m->start < m->len)
			return m;
	}
	return NULL;
}

bool pb_symbolizer_resolve(struct pb_symbolizer *sy, uint32_t pid, uint64_t ip, size_t *object,
			   uint64_t *addr)
{
	const struct pb_sym_map *m = pb_symbolizer_map(sy, pid, ip);
	if (!m)
		return false;
	long o = pb_symbolizer_object(sy, m->path);
	if (o < 0 || !sy->objects[o].object ||
	    !pb_prof_object_offset_to_addr(sy->objects[o].object, ip - m->start + m->pgoff, addr))
		return false;
	*object = (size_t)o;
	return true;
}

void pb_symbolizer_name(struct pb_symbolizer *sy, uint32_t pid, uint64_t ip, char *out,
			size_t len)
{
	out[0] = '\0';
	const struct pb_sym_map *m = pb_symbolizer_map(sy, pid, ip);
	if (!m)
		return;
	if (m->path[0] != '/') {
		snprintf(out, len, "%s", m->path);
		return;
	}
	size_t o;
	uint64_t addr, start;
	const char *name = NULL;
	if (pb_symbolizer_resolve(sy, pid, ip, &o, &addr))
		name = pb_prof_object_symbol(sy->objects[o].object, addr, &start);
	if (name)
		snprintf(out, len, "%s+%#" PRIx64 " (%s)", name, addr - start, pb_path_base(m->path));
	else
		snprintf(out, len, "(%s+%#" PRIx64 ")", pb_path_base(m->path), ip - m->start + m->pgoff);
}

void pb_symbolizer_free(struct pb_symbolizer *sy)
{
	for (size_t i = 0; i < sy->nmaps; i++)
		free(sy->maps[i].path);
	free(sy->maps);
	for (size_t i = 0; i < sy->nobjects; i++) {
		if (sy->objects[i].object)
			pb_prof_object_close(sy->objects[i].object);
		free(sy->objects[i].path);
	}
	free(sy->objects);
	memset(sy, 0, sizeof *sy);
}
