/* The export model: interned strings, frames keyed by (object, address), and per profile the
 * distinct stacks. Hash keys are chained, never trusted alone: two stacks (or strings) with one
 * hash stay two entries. */
#include "export/export.h"
#include "analysis/demangle.h"
#include "util/kit.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define END UINT32_MAX

static uint64_t hash_bytes(const void *p, size_t n, uint64_t h)
{
	const uint8_t *b = p;
	for (size_t i = 0; i < n; i++) {
		h ^= b[i];
		h *= UINT64_C(0x100000001b3);
	}
	return h;
}

const char *pb_xset_intern(struct pb_xset *s, const char *text)
{
	if (!text)
		text = "";
	size_t len = strlen(text);
	uint64_t h = hash_bytes(text, len, UINT64_C(0xcbf29ce484222325));
	const uint64_t *at = pb_hashmap_find(&s->string_index, h, 0);
	uint32_t i = at ? (uint32_t)*at : END;
	for (; i != END; i = s->string_next[i])
		if (!strcmp(s->strings[i], text))
			return s->strings[i];
	size_t cap = s->strings_cap;
	if (pb_grow(&s->strings, &s->strings_cap, s->nstrings, sizeof *s->strings, 256))
		return NULL;
	if (cap != s->strings_cap) {
		uint32_t *next = realloc(s->string_next, s->strings_cap * sizeof *next);
		if (!next)
			return NULL;
		s->string_next = next;
	}
	char *copy = strdup(text);
	bool added;
	uint64_t *slot = copy ? pb_hashmap_upsert(&s->string_index, h, 0, &added) : NULL;
	if (!slot) {
		free(copy);
		return NULL;
	}
	size_t n = s->nstrings++;
	s->strings[n] = copy;
	s->string_next[n] = added ? END : (uint32_t)*slot;
	*slot = n;
	return copy;
}

long pb_xset_find_frame(const struct pb_xset *s, const char *object, uint64_t addr)
{
	/* interned, so the pointer names the object */
	const uint64_t *at = pb_hashmap_find(&s->frame_index, (uint64_t)(uintptr_t)object, addr);
	return at ? (long)*at : -1;
}

long pb_xset_frame(struct pb_xset *s, const char *object, uint64_t addr, const char *function,
		   const char *file, int line)
{
	const char *obj = pb_xset_intern(s, object);
	if (!obj)
		return -1;
	long known = pb_xset_find_frame(s, obj, addr);
	if (known >= 0)
		return known;
	const char *symbol = pb_xset_intern(s, function && function[0] ? function : "[unknown]");
	char *demangled = pb_demangle(symbol);
	const char *fn = demangled ? pb_xset_intern(s, demangled) : symbol;
	free(demangled);
	const char *src = pb_xset_intern(s, file);
	if (!symbol || !fn || !src ||
	    pb_grow(&s->frames, &s->frames_cap, s->nframes, sizeof *s->frames, 256))
		return -1;
	bool added;
	uint64_t *slot = pb_hashmap_upsert(&s->frame_index, (uint64_t)(uintptr_t)obj, addr, &added);
	if (!slot)
		return -1;
	s->frames[s->nframes] = (struct pb_xframe){.function = fn, .system_name = symbol,
						   .object = obj, .file = src, .addr = addr,
						   .line = line};
	*slot = s->nframes;
	return (long)s->nframes++;
}

long pb_xset_add_profile(struct pb_xset *s, const char *name, const struct pb_xvalue_type *types,
			 size_t ntypes)
{
	if (s->nprofiles == PB_XPROFILES_MAX || !ntypes || ntypes > PB_XVALUES_MAX)
		return -1;
	struct pb_xprofile *p = &s->profiles[s->nprofiles];
	memset(p, 0, sizeof *p);
	snprintf(p->name, sizeof p->name, "%s", name);
	memcpy(p->types, types, ntypes * sizeof *types);
	p->ntypes = ntypes;
	return (long)s->nprofiles++;
}

static bool same_frames(const struct pb_xprofile *p, size_t stack, const uint32_t *frames,
			size_t depth)
{
	return p->stacks[stack].depth == depth &&
	       !memcmp(p->pool + p->stacks[stack].first, frames, depth * sizeof *frames);
}

long pb_xprofile_add(struct pb_xset *s, size_t pi, const uint32_t *frames, size_t depth,
		    const uint64_t *values)
{
	struct pb_xprofile *p = &s->profiles[pi];
	uint64_t h = hash_bytes(frames, depth * sizeof *frames, UINT64_C(0xcbf29ce484222325));
	const uint64_t *at = pb_hashmap_find(&p->index, h, depth);
	uint32_t i = at ? (uint32_t)*at : END;
	while (i != END && !same_frames(p, i, frames, depth))
		i = p->stacks[i].next;
	if (i == END) {
		size_t cap = p->stacks_cap;
		if (p->nstacks >= END - 1 ||
		    pb_grow(&p->stacks, &p->stacks_cap, p->nstacks, sizeof *p->stacks, 256))
			return -1;
		if (cap != p->stacks_cap) {
			uint64_t *v = realloc(p->values, p->stacks_cap * p->ntypes * sizeof *v);
			if (!v)
				return -1;
			p->values = v;
		}
		while (p->npool + depth > p->pool_cap)
			if (pb_grow(&p->pool, &p->pool_cap, p->pool_cap, sizeof *p->pool, 1024))
				return -1;
		bool added;
		uint64_t *slot = pb_hashmap_upsert(&p->index, h, depth, &added);
		if (!slot)
			return -1;
		i = (uint32_t)p->nstacks++;
		p->stacks[i] = (struct pb_xstack){.first = p->npool, .depth = (uint32_t)depth,
						  .next = added ? END : (uint32_t)*slot};
		*slot = i;
		if (depth)
			memcpy(p->pool + p->npool, frames, depth * sizeof *frames);
		p->npool += depth;
		memset(p->values + (size_t)i * p->ntypes, 0, p->ntypes * sizeof *p->values);
	}
	uint64_t *v = p->values + (size_t)i * p->ntypes;
	for (size_t t = 0; t < p->ntypes; t++)
		v[t] += values[t];
	return (long)i;
}

int pb_xprofile_comment(struct pb_xset *s, size_t pi, const char *fmt, ...)
{
	struct pb_xprofile *p = &s->profiles[pi];
	char text[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	char **c = realloc(p->comments, (p->ncomments + 1) * sizeof *c);
	if (!c)
		return -1;
	p->comments = c;
	if (!(c[p->ncomments] = strdup(text)))
		return -1;
	p->ncomments++;
	return 0;
}

void pb_xset_free(struct pb_xset *s)
{
	for (size_t i = 0; i < s->nprofiles; i++) {
		struct pb_xprofile *p = &s->profiles[i];
		free(p->stacks);
		free(p->values);
		free(p->pool);
		pb_hashmap_free(&p->index);
		for (size_t c = 0; c < p->ncomments; c++)
			free(p->comments[c]);
		free(p->comments);
	}
	for (size_t i = 0; i < s->nstrings; i++)
		free(s->strings[i]);
	free(s->strings);
	free(s->string_next);
	pb_hashmap_free(&s->string_index);
	free(s->frames);
	pb_hashmap_free(&s->frame_index);
	memset(s, 0, sizeof *s);
}
