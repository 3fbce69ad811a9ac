/* Stacks of raw frames (process, address) collected while records stream by, named only at the
 * end, when every mapping is known: records of one CPU's ring can come before the mapping
 * another CPU's ring announced (perf orders records by time before it names them). Used by the
 * perf.data converter and by `profile`'s own samples. */
#ifndef PB_EXPORT_RAW_H
#define PB_EXPORT_RAW_H

#include "analysis/profile.h"
#include "export/export.h"

/* perf's own limit is 127 by default (kernel.perf_event_max_stack); deeper chains keep their
 * leaf end and are counted. */
#define PB_XRAW_MAX_DEPTH 1024

/* When a sample was taken: its time (PB_SYM_TIME_UNKNOWN without one) and its process's era
 * then (pb_symbolizer_era). Raw frames of one address in two eras stay apart, as two mappings
 * may name them. */
struct pb_xraw_when {
	uint64_t time;
	uint32_t era;
};

struct pb_xraw {
	struct pb_xset stacks;       /* one profile; its frame indices point into pid/ip/time */
	struct pb_hashmap index;     /* (pid | era << 32, ip) -> raw frame */
	struct pb_hashmap single;    /* (pid | era << 32, ip) -> the stack of a chainless sample */
	uint32_t *pid;
	uint64_t *ip;
	uint64_t *time;              /* of the frame's first sample: the moment that names it */
	size_t n, cap;
	uint32_t frames[PB_XRAW_MAX_DEPTH];
	uint64_t cut_chains;         /* chains deeper than PB_XRAW_MAX_DEPTH */
};

int pb_xraw_init(struct pb_xraw *r, const char *name, const struct pb_xvalue_type *types,
		 size_t ntypes);
/* A sample: its call chain leaf first as the kernel stores it (perf's PERF_CONTEXT_* markers
 * skipped), or its IP alone when chain is NULL or holds markers only, taken when says; values
 * as the profile's types. -1 when out of memory. */
int pb_xraw_add_at(struct pb_xraw *r, uint32_t pid, uint64_t ip, struct pb_xraw_when when,
		   const uint64_t *chain, uint64_t nchain, const uint64_t *values);
/* pb_xraw_add_at of a sample without a time: named by the latest mappings. */
int pb_xraw_add(struct pb_xraw *r, uint32_t pid, uint64_t ip, const uint64_t *chain,
		uint64_t nchain, const uint64_t *values);
/* The frame of a link-time address of an object (path names it) in out: its symbol and source
 * line; -1 when out of memory. */
long pb_xraw_object_frame(struct pb_xset *out, struct pb_prof_object *obj, const char *path,
			  uint64_t addr);
/* The frame of (pid, ip) at time in out: object, link-time address, symbol, source line. */
long pb_xraw_name_frame(struct pb_xset *out, struct pb_symbolizer *sy, uint32_t pid, uint64_t ip,
			uint64_t time);
/* Adds every raw stack, named by sy, to profile p of out (of the same value types). */
int pb_xraw_name(struct pb_xraw *r, struct pb_symbolizer *sy, struct pb_xset *out, size_t p);
void pb_xraw_free(struct pb_xraw *r);

#endif
