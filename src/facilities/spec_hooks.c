/* The descriptor's run-time hooks as the rest of pesbench calls them: each function owns its
 * hook's NULL check and the default of a facility that leaves the hook out, so no caller
 * outside facilities/ reaches into the descriptor (tests/source_facility_hooks.sh checks it). */
#include "facilities/facility.h"

void pb_facility_availability(const struct pb_machine *m, const struct pb_facility *f,
			      const struct pb_spec *spec, struct pb_availability *out)
{
	f->availability(m, spec, out);
}

uint64_t pb_facility_aux_deliver(const struct pb_facility *f, struct pb_aux *aux,
				 const struct pb_record *aux_rec,
				 void (*fn)(void *ctx, const struct pb_record *rec), void *ctx,
				 struct pb_ring_stats *stats)
{
	return f->aux_deliver ? f->aux_deliver(aux, aux_rec, fn, ctx, stats) : 0;
}

const char *pb_facility_perf_event_name(const struct pb_facility *f, size_t i)
{
	return f->perf_event_name ? f->perf_event_name(i) : NULL;
}

bool pb_spec_can_exclude(const struct pb_spec *spec)
{
	return !spec->facility->can_exclude || spec->facility->can_exclude(spec);
}

bool pb_spec_filters_in_software(const struct pb_spec *spec)
{
	return spec->facility->filters_in_software && spec->facility->filters_in_software(spec);
}

bool pb_spec_sample_in_subset(const struct pb_machine *m, const struct pb_spec *spec,
			      const struct pb_sample *sample)
{
	return !spec->facility->sample_in_subset ||
	       spec->facility->sample_in_subset(m, spec, sample);
}

int pb_spec_randomise_in_hardware(struct pb_spec *spec, struct pb_error *err)
{
	if (!spec->facility->randomise_in_hardware)
		return 0;
	return spec->facility->randomise_in_hardware(spec, err) ? -1 : 1;
}

const struct pb_own_figure *pb_spec_own_figure(const struct pb_spec *spec, size_t i)
{
	if (!spec->facility->own_figure || i >= PB_OWN_FIGURES)
		return NULL;
	return spec->facility->own_figure(spec, i);
}

void pb_spec_own_tally_thread(const struct pb_spec *spec, uint64_t samples,
			      const struct pb_ring_stats *ring, uint64_t *own)
{
	if (spec->facility->own_tally_thread)
		spec->facility->own_tally_thread(spec, samples, ring, own);
}

void pb_spec_own_tally_sample(const struct pb_machine *m, const struct pb_spec *spec,
			      const struct pb_sample *sample, uint64_t *own)
{
	if (spec->facility->own_tally_sample)
		spec->facility->own_tally_sample(m, spec, sample, own);
}
