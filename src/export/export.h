/* Profiles as the viewers people use read them (pprof, speedscope, folded stacks for flame
 * graphs). The seam is one model and one small interface: a set of profiles that share their
 * frames (one symbol space, so a sampled profile and its exact reference line up), each profile
 * a list of distinct stacks with a value per sample type; a format turns a set into bytes. The
 * next format is one more file and one more line in the table of export.c.
 *
 * Memory grows with distinct frames and distinct stacks only, never with samples: a stack seen
 * again adds its values to the one already held. */
#ifndef PB_EXPORT_H
#define PB_EXPORT_H

#include "util/error.h"
#include "util/hashmap.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* One frame: a code address of an object, with what symbols and debug lines say of it. */
struct pb_xframe {
	const char *function;    /* the function as people read it (demangled: demangle.h),
				  * "[unknown]" when no symbol covers the address */
	const char *system_name; /* the symbol as linked (pprof's system_name) */
	const char *object;      /* ELF path, "[kernel.kallsyms]", "[unknown]" without a mapping */
	const char *file;        /* source file, "" unknown */
	uint64_t addr;           /* link-time address in object (the sampled address without one) */
	int line;                /* 0 unknown */
};

#define PB_XVALUES_MAX 64

struct pb_xvalue_type {
	char type[160];          /* "samples", "cpu-clock:period", "instructions" */
	char unit[32];           /* "count", "events", "nanoseconds" */
	bool primary;            /* what one-weight formats (folded, speedscope) show */
};

/* A distinct stack: frames leaf first in the set's pool, its values summed. */
struct pb_xstack {
	size_t first;            /* index of its leaf in the profile's frame pool */
	uint32_t depth;
	uint32_t next;           /* next stack with the same hash key, UINT32_MAX at the end */
};

struct pb_xprofile {
	char name[128];
	struct pb_xvalue_type types[PB_XVALUES_MAX];
	size_t ntypes;
	int64_t period;          /* pprof's period (0: not one) of period_type types[period_type] */
	size_t period_type;
	struct pb_xstack *stacks;
	size_t nstacks, stacks_cap;
	uint64_t *values;        /* nstacks × ntypes */
	uint32_t *pool;          /* frame indices */
	size_t npool, pool_cap;
	struct pb_hashmap index; /* stack hash -> first stack of that hash */
	char **comments;         /* stated with the profile: losses, what was left out */
	size_t ncomments;
};

#define PB_XPROFILES_MAX 8

struct pb_xset {
	struct pb_xframe *frames;
	size_t nframes, frames_cap;
	struct pb_hashmap frame_index;   /* (object string, addr) -> frame */
	char **strings;                  /* interned names, freed with the set */
	size_t nstrings, strings_cap;
	struct pb_hashmap string_index;  /* string hash -> first string index (chained below) */
	uint32_t *string_next;
	struct pb_xprofile profiles[PB_XPROFILES_MAX];
	size_t nprofiles;
	/* Frames get no source file and line: no format asked wants them, and reading objects'
	 * debug lines is most of what a small export costs. */
	bool no_source;
};

/* A string held by the set (equal strings share one copy); NULL when out of memory. */
const char *pb_xset_intern(struct pb_xset *s, const char *text);
/* The frame of (object, addr), added with the given names when new; object and names are
 * interned, and function (the symbol as linked) is shown demangled. Returns its index, -1 when
 * out of memory. */
long pb_xset_frame(struct pb_xset *s, const char *object, uint64_t addr, const char *function,
		   const char *file, int line);
/* The index of a frame already added for (object, addr), -1 when there is none. */
long pb_xset_find_frame(const struct pb_xset *s, const char *object, uint64_t addr);
/* A new profile with ntypes value types (copied); its index, -1 when the set is full. */
long pb_xset_add_profile(struct pb_xset *s, const char *name, const struct pb_xvalue_type *types,
			 size_t ntypes);
/* Adds values (ntypes of them) to the stack of frames (leaf first) of profile p; the stack's
 * index, -1 when out of memory. */
long pb_xprofile_add(struct pb_xset *s, size_t p, const uint32_t *frames, size_t depth,
		    const uint64_t *values);
/* A line said with the profile (pprof comments, speedscope's exporter field, folded's header
 * is none: folded stacks have no room for it). */
int pb_xprofile_comment(struct pb_xset *s, size_t p, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void pb_xset_free(struct pb_xset *s);

static inline const uint32_t *pb_xstack_frames(const struct pb_xprofile *p, size_t stack)
{
	return p->pool + p->stacks[stack].first;
}
static inline const uint64_t *pb_xstack_values(const struct pb_xprofile *p, size_t stack)
{
	return p->values + stack * p->ntypes;
}

/* ---- formats ---- */

struct pb_export_format {
	const char *name;
	const char *summary;
	/* true: all profiles of a set in one file; false: one profile per file */
	bool all_in_one;
	/* it writes frames' source files or lines (pb_xset.no_source) */
	bool source;
	/* Writes profiles[0..n) of s to out. */
	int (*write)(const struct pb_xset *s, const size_t *profiles, size_t n, FILE *out,
		     struct pb_error *err);
};

extern const struct pb_export_format pb_export_pprof, pb_export_speedscope, pb_export_folded;

/* The formats, NULL-terminated. */
const struct pb_export_format *const *pb_export_formats(void);

/* One --export request: FORMAT:FILE. */
struct pb_export_request {
	const struct pb_export_format *format;
	const char *path;
};
/* Parses "FORMAT:FILE"; an unknown format or a missing file is PB_EXIT_USAGE naming the
 * formats. */
int pb_export_parse(const char *text, struct pb_export_request *out, struct pb_error *err);

/* Parses one more --export into list[*n] (at most max of them); PB_EXIT_USAGE when full or
 * bad. */
int pb_export_add(struct pb_export_request *list, size_t *n, size_t max, const char *text,
		  struct pb_error *err);

/* Writes the set as the request says. A format that holds one profile per file writes the
 * first profile to the path and each further one beside it, its name inserted before the
 * extension ("prof.pb.gz" -> "prof.exact.pb.gz"); `written` (may be NULL) receives each path
 * as it is done. Every file appears complete or not at all (a temporary file renamed). */
int pb_export_write(const struct pb_export_request *req, const struct pb_xset *s,
		    void (*written)(void *ctx, const char *path, const char *profile),
		    void *ctx, struct pb_error *err);
/* The path of profile `suffix` beside path (see pb_export_write). */
void pb_export_sibling_path(const char *path, const char *suffix, char *out, size_t len);

#endif
