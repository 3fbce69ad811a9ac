/* The sample histogram and the symbolizer `perfdata` and `profile` share: an IP of a process
 * to its object, its link-time address and "symbol+offset (object)". */
#include "analysis/profile.h"
#include "ring/record.h"

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
			  uint64_t pgoff, const char *path, uint64_t time)
{
	char *copy;
	if (pb_grow(&sy->maps, &sy->maps_cap, sy->nmaps, sizeof *sy->maps, 64) ||
	    !(copy = strdup(path)))
		return -1;
	sy->maps[sy->nmaps++] = (struct pb_sym_map){.pid = pid, .start = start, .len = len,
						    .pgoff = pgoff, .time = time,
						    .seq = sy->next_seq++, .path = copy};
	return 0;
}

int pb_symbolizer_fork(struct pb_symbolizer *sy, uint32_t pid, uint32_t ppid, uint64_t time)
{
	if (pb_grow(&sy->forks, &sy->forks_cap, sy->nforks, sizeof *sy->forks, 8))
		return -1;
	sy->forks[sy->nforks++] =
		(struct pb_sym_fork){.pid = pid, .ppid = ppid, .time = time, .seq = sy->next_seq++};
	return 0;
}

int pb_symbolizer_take(struct pb_symbolizer *sy, const struct pb_record *rec)
{
	if ((rec->type == PERF_RECORD_MMAP || rec->type == PERF_RECORD_MMAP2) &&
	    rec->u.mmap.filename)
		return pb_symbolizer_add_map(sy, rec->u.mmap.pid, rec->u.mmap.addr, rec->u.mmap.len,
					     rec->u.mmap.pgoff, rec->u.mmap.filename,
					     rec->sample_id.time);
	/* a new process starts with its parent's mappings; no MMAP record repeats them */
	if (rec->type == PERF_RECORD_FORK && rec->u.task.pid != rec->u.task.ppid)
		return pb_symbolizer_fork(sy, rec->u.task.pid, rec->u.task.ppid, rec->u.task.time);
	return 0;
}

/* Before or at once: by time when both have one, else by the order they were announced. */
static bool made_by(uint64_t time, uint64_t seq, uint64_t by_time, uint64_t by_seq)
{
	return time && by_time ? time <= by_time : seq < by_seq;
}

static int cmp_fork(const void *a, const void *b)
{
	const struct pb_sym_fork *x = a, *y = b;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Time, then announcement; unknown times (0) first, as a recording's synthesized mappings of
 * what existed before it began have none. */
static int cmp_map(const void *a, const void *b)
{
	const struct pb_sym_map *x = a, *y = b;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

int pb_symbolizer_settle(struct pb_symbolizer *sy)
{
	bool timed = true;
	for (size_t f = 0; f < sy->nforks; f++)
		timed = timed && sy->forks[f].time;
	if (timed && sy->nforks > 1)
		qsort(sy->forks, sy->nforks, sizeof *sy->forks, cmp_fork);
	for (size_t f = 0; f < sy->nforks; f++) {
		const struct pb_sym_fork fk = sy->forks[f];
		for (size_t i = 0, n = sy->nmaps; i < n; i++) {
			const struct pb_sym_map m = sy->maps[i];
			if (m.pid != fk.ppid || !made_by(m.time, m.seq, fk.time, fk.seq))
				continue;
			char *copy;
			if (pb_grow(&sy->maps, &sy->maps_cap, sy->nmaps, sizeof *sy->maps, 64) ||
			    !(copy = strdup(m.path)))
				return -1;
			sy->maps[sy->nmaps] = m;
			sy->maps[sy->nmaps].pid = fk.pid;
			sy->maps[sy->nmaps++].path = copy;
		}
	}
	sy->nforks = 0;
	if (sy->nmaps > 1)
		qsort(sy->maps, sy->nmaps, sizeof *sy->maps, cmp_map);
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
	free(sy->forks);
	for (size_t i = 0; i < sy->nobjects; i++) {
		if (sy->objects[i].object)
			pb_prof_object_close(sy->objects[i].object);
		free(sy->objects[i].path);
	}
	free(sy->objects);
	memset(sy, 0, sizeof *sy);
}
