/* `pesbench profile`'s two profiles in one symbol space: the sampled one (its stacks, named
 * after the run) and the exact one (callgrind's instructions per address), so a viewer can put
 * them side by side or diff them (pprof -diff_base). */
#ifndef PB_EXPORT_FROM_PROFILE_H
#define PB_EXPORT_FROM_PROFILE_H

#include "analysis/profile.h"
#include "export/raw.h"

/* The value types both profiles carry (pprof diffs only profiles of equal types): samples
 * (count) and instructions (count). The sampled profile's instructions are its samples scaled
 * to callgrind's total (samples × total Ir / samples compared): what the sampled profile
 * estimates; the exact profile has no samples. */
enum { PB_XPROF_SAMPLES, PB_XPROF_INSTRUCTIONS, PB_XPROF_NTYPES };

/* Starts the raw stacks of the sampled profile (values: PB_XPROF_NTYPES). */
int pb_xprof_raw_init(struct pb_xraw *sampled);

struct pb_xprof_input {
	const struct pb_map *maps;   /* the sampled process's file mappings */
	size_t nmaps;
	struct pb_xraw *sampled;     /* user-mode samples, one each */
	uint64_t kernel_samples;     /* left out, as the comparison leaves them out */
	const char *callgrind_file;
	const char *source;          /* what sampled: "timer:cpu-clock period 100000", a file */
};

/* Profile 0 "sampled", profile 1 "exact" in out. */
int pb_xprof_build(const struct pb_xprof_input *in, struct pb_xset *out, struct pb_error *err);

#endif
