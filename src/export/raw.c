/* Raw stacks, named at the end (raw.h). */
#include "export/raw.h"
#include "util/kit.h"

#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>

int pb_xraw_init(struct pb_xraw *r, const char *name, const struct pb_xvalue_type *types,
		 size_t ntypes)
{
	memset(r, 0, sizeof *r);
	return pb_xset_add_profile(&r->stacks, name, types, ntypes) < 0 ? -1 : 0;
}

/* The first word of a key of index and single: the process and its era. */
static uint64_t raw_key(uint32_t pid, struct pb_xraw_when when)
{
	return pid | (uint64_t)when.era << 32;
}

static long raw_frame(struct pb_xraw *r, uint32_t pid, uint64_t ip, struct pb_xraw_when when)
{
	const uint64_t *known = pb_hashmap_find(&r->index, raw_key(pid, when), ip);
	if (known)
		return (long)*known;
	size_t cap = r->cap;
	if (r->n >= UINT32_MAX || pb_grow(&r->ip, &r->cap, r->n, sizeof *r->ip, 1024))
		return -1;
	if (cap != r->cap) {
		uint32_t *p = realloc(r->pid, r->cap * sizeof *p);
		if (!p)
			return -1;
		r->pid = p;
		uint64_t *t = realloc(r->time, r->cap * sizeof *t);
		if (!t)
			return -1;
		r->time = t;
	}
	bool added;
	uint64_t *slot = pb_hashmap_upsert(&r->index, raw_key(pid, when), ip, &added);
	if (!slot)
		return -1;
	r->pid[r->n] = pid;
	r->ip[r->n] = ip;
	r->time[r->n] = when.time;
	*slot = r->n;
	return (long)r->n++;
}

/* A sample without a chain whose IP was seen alone before: its stack's values grow in place,
 * one lookup, as the histogram counts a sample. */
static bool add_known_single(struct pb_xraw *r, uint32_t pid, uint64_t ip,
			     struct pb_xraw_when when, const uint64_t *values)
{
	const uint64_t *at = pb_hashmap_find(&r->single, raw_key(pid, when), ip);
	if (!at)
		return false;
	struct pb_xprofile *p = &r->stacks.profiles[0];
	uint64_t *v = p->values + *at * p->ntypes;
	for (size_t t = 0; t < p->ntypes; t++)
		v[t] += values[t];
	return true;
}

int pb_xraw_add(struct pb_xraw *r, uint32_t pid, uint64_t ip, const uint64_t *chain,
		uint64_t nchain, const uint64_t *values)
{
	const struct pb_xraw_when unknown = {PB_SYM_TIME_UNKNOWN, PB_SYM_ERA_UNKNOWN};
	return pb_xraw_add_at(r, pid, ip, unknown, chain, nchain, values);
}

int pb_xraw_add_at(struct pb_xraw *r, uint32_t pid, uint64_t ip, struct pb_xraw_when when,
		   const uint64_t *chain, uint64_t nchain, const uint64_t *values)
{
	if ((!chain || !nchain) && add_known_single(r, pid, ip, when, values))
		return 0;
	size_t depth = 0;
	for (uint64_t i = 0; chain && i < nchain; i++) {
		uint64_t at;
		memcpy(&at, chain + i, sizeof at); /* chains sit unaligned in a record */
		if (at >= (uint64_t)PERF_CONTEXT_MAX)
			continue; /* PERF_CONTEXT_KERNEL, _USER, _HV, _GUEST*: where the next part is */
		if (depth == PB_XRAW_MAX_DEPTH) {
			r->cut_chains++;
			break;
		}
		long f = raw_frame(r, pid, at, when);
		if (f < 0)
			return -1;
		r->frames[depth++] = (uint32_t)f;
	}
	bool single = !depth;
	if (single) {
		long f = raw_frame(r, pid, ip, when);
		if (f < 0)
			return -1;
		r->frames[depth++] = (uint32_t)f;
	}
	long st = pb_xprofile_add(&r->stacks, 0, r->frames, depth, values);
	if (st < 0)
		return -1;
	if (single && (!chain || !nchain)) {
		bool added;
		uint64_t *slot = pb_hashmap_upsert(&r->single, raw_key(pid, when), ip, &added);
		if (!slot)
			return -1;
		*slot = (uint64_t)st;
	}
	return 0;
}

long pb_xraw_object_frame(struct pb_xset *out, struct pb_prof_object *obj, const char *path,
			  uint64_t addr)
{
	uint64_t start;
	const char *fn = pb_prof_object_symbol(obj, addr, &start);
	const char *file = "";
	int line = 0;
	if (out->no_source || !pb_prof_object_source(obj, addr, &file, &line)) {
		file = "";
		line = 0;
	}
	return pb_xset_frame(out, path, addr, fn, file, line);
}

long pb_xraw_name_frame(struct pb_xset *out, struct pb_symbolizer *sy, uint32_t pid, uint64_t ip,
			uint64_t time)
{
	const struct pb_sym_map *m = pb_symbolizer_map_at(sy, pid, ip, time);
	size_t o;
	uint64_t addr;
	if (!m)
		return pb_xset_frame(out, "[unknown]", ip, "[unknown]", "", 0);
	if (pb_sym_map_is_kernel(m)) {
		/* the kernel's addresses are its symbols' (pb_symbolizer_kernel_symbol), one object */
		uint64_t start;
		const char *fn = pb_symbolizer_kernel_symbol(sy, m, ip, &start);
		return pb_xset_frame(out, "[kernel.kallsyms]", ip, fn ? fn : "[unknown]", "", 0);
	}
	if (pb_symbolizer_resolve_at(sy, pid, ip, time, &o, &addr))
		return pb_xraw_object_frame(out, sy->objects[o].object, m->path, addr);
	/* [kernel.kallsyms], [vdso], an object that cannot be opened: the offset in it */
	return pb_xset_frame(out, m->path, ip - m->start + m->pgoff, "[unknown]", "", 0);
}

int pb_xraw_name(struct pb_xraw *r, struct pb_symbolizer *sy, struct pb_xset *out, size_t p)
{
	uint32_t *named = malloc((r->n ? r->n : 1) * sizeof *named);
	if (!named)
		return -1;
	for (size_t i = 0; i < r->n; i++) {
		long f = pb_xraw_name_frame(out, sy, r->pid[i], r->ip[i], r->time[i]);
		if (f < 0) {
			free(named);
			return -1;
		}
		named[i] = (uint32_t)f;
	}
	const struct pb_xprofile *raw = &r->stacks.profiles[0];
	int rc = 0;
	for (size_t st = 0; st < raw->nstacks && !rc; st++) {
		const uint32_t *f = pb_xstack_frames(raw, st);
		size_t depth = raw->stacks[st].depth;
		for (size_t i = 0; i < depth; i++)
			r->frames[i] = named[f[i]];
		rc = pb_xprofile_add(out, p, r->frames, depth, pb_xstack_values(raw, st)) < 0;
	}
	free(named);
	return rc;
}

void pb_xraw_free(struct pb_xraw *r)
{
	pb_xset_free(&r->stacks);
	pb_hashmap_free(&r->index);
	pb_hashmap_free(&r->single);
	free(r->pid);
	free(r->ip);
	free(r->time);
	memset(r, 0, sizeof *r);
}
