/* The sampled and the exact profile of `pesbench profile` in one set (from_profile.h). The exact
 * profile is flat: callgrind's per-instruction counts carry no call stacks, so each executed
 * address is a stack of one frame, named exactly as a sample at that address is. */
#include "export/from_profile.h"
#include "analysis/callgrind.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

static const struct pb_xvalue_type sampled_types[PB_XPROF_NTYPES] = {
	[PB_XPROF_SAMPLES] = {.type = "samples", .unit = "count", .primary = true},
	[PB_XPROF_INSTRUCTIONS] = {.type = "instructions", .unit = "count"},
};
static const struct pb_xvalue_type exact_types[PB_XPROF_NTYPES] = {
	[PB_XPROF_SAMPLES] = {.type = "samples", .unit = "count"},
	[PB_XPROF_INSTRUCTIONS] = {.type = "instructions", .unit = "count", .primary = true},
};

int pb_xprof_raw_init(struct pb_xraw *sampled)
{
	return pb_xraw_init(sampled, "sampled", sampled_types, PB_XPROF_NTYPES);
}

/* Adds callgrind's executed addresses of object o (path) to the exact profile; its total. */
static int add_exact_object(struct pb_xset *out, struct pb_prof_object *obj, const char *path,
			    const char *callgrind_file, uint64_t *total, struct pb_error *err)
{
	struct pb_cg_profile cg = {0};
	if (pb_callgrind_parse_file(callgrind_file, path, &cg, err))
		return -1;
	int rc = 0;
	for (size_t i = 0; i < cg.n && !rc; i++) {
		long f = pb_xraw_object_frame(out, obj, path, cg.instr[i].addr);
		uint32_t frame = (uint32_t)f;
		uint64_t values[PB_XPROF_NTYPES] = {[PB_XPROF_INSTRUCTIONS] = cg.instr[i].ir};
		if (f < 0 || pb_xprofile_add(out, 1, &frame, 1, values) < 0)
			rc = pb_fail(err, PB_EXIT_FAILURE, ENOMEM, "out of memory for the exact profile");
		*total += cg.instr[i].ir;
	}
	pb_cg_profile_free(&cg);
	return rc;
}

int pb_xprof_build(const struct pb_xprof_input *in, struct pb_xset *out, struct pb_error *err)
{
	struct pb_symbolizer sy = {0};
	int rc = -1;
	if (pb_xset_add_profile(out, "sampled", sampled_types, PB_XPROF_NTYPES) < 0 ||
	    pb_xset_add_profile(out, "exact", exact_types, PB_XPROF_NTYPES) < 0) {
		pb_fail(err, PB_EXIT_FAILURE, ENOMEM, "out of memory");
		goto done;
	}
	/* every mapping holds every pid's IPs: one process was sampled */
	for (size_t m = 0; m < in->nmaps; m++)
		if (pb_symbolizer_add_map(&sy, UINT32_MAX, in->maps[m].start,
					  in->maps[m].end - in->maps[m].start, in->maps[m].pgoff,
					  in->maps[m].path, 0) ||
		    pb_symbolizer_object(&sy, in->maps[m].path) < 0) {
			pb_fail(err, PB_EXIT_FAILURE, ENOMEM, "out of memory");
			goto done;
		}
	if (pb_xraw_name(in->sampled, &sy, out, 0)) {
		pb_fail(err, PB_EXIT_FAILURE, ENOMEM, "out of memory naming the samples");
		goto done;
	}
	uint64_t total_ir = 0;
	for (size_t o = 0; o < sy.nobjects; o++)
		if (sy.objects[o].object &&
		    add_exact_object(out, sy.objects[o].object, sy.objects[o].path,
				     in->callgrind_file, &total_ir, err))
			goto done;
	struct pb_xprofile *sp = &out->profiles[0];
	uint64_t samples = 0;
	for (size_t st = 0; st < sp->nstacks; st++)
		samples += pb_xstack_values(sp, st)[PB_XPROF_SAMPLES];
	for (size_t st = 0; st < sp->nstacks && samples; st++) {
		uint64_t *v = sp->values + st * sp->ntypes;
		v[PB_XPROF_INSTRUCTIONS] =
			(uint64_t)llround((double)v[PB_XPROF_SAMPLES] * (double)total_ir / (double)samples);
	}
	if (pb_xprofile_comment(out, 0, "samples: %s; %" PRIu64 " user samples, %" PRIu64
				" kernel samples left out (callgrind counts user code only)",
				in->source, samples, in->kernel_samples) ||
	    pb_xprofile_comment(out, 0, "instructions: the samples scaled to callgrind's total "
				"(samples x %" PRIu64 " / %" PRIu64 "), what the sampled profile "
				"estimates; diff it against the exact profile",
				total_ir, samples) ||
	    (in->sampled->cut_chains &&
	     pb_xprofile_comment(out, 0, "%" PRIu64 " call chains deeper than %d frames: their "
				 "outermost callers cut", in->sampled->cut_chains,
				 PB_XRAW_MAX_DEPTH)) ||
	    pb_xprofile_comment(out, 1, "exact: callgrind, %" PRIu64 " instructions executed; "
				"flat (one frame per executed address): callgrind's counts per "
				"instruction carry no call stacks", total_ir)) {
		pb_fail(err, PB_EXIT_FAILURE, ENOMEM, "out of memory");
		goto done;
	}
	rc = 0;
done:
	pb_symbolizer_free(&sy);
	return rc;
}
