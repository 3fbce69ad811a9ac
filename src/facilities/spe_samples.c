/* SPE records to samples (see spe_samples.h). */
#include "facilities/spe_samples.h"

#include <string.h>

void pb_spe_clock_from_meta(struct pb_spe_clock *clock, const struct perf_event_mmap_page *meta)
{
	memset(clock, 0, sizeof *clock);
	if (!meta || !meta->cap_user_time_zero)
		return;
	clock->valid = true;
	clock->shift = meta->time_shift;
	clock->mult = meta->time_mult;
	clock->zero = meta->time_zero;
	if (meta->cap_user_time_short) {
		clock->short_counter = true;
		clock->cycles = meta->time_cycles;
		clock->mask = meta->time_mask;
	}
}

uint64_t pb_spe_clock_time(const struct pb_spe_clock *clock, uint64_t counter)
{
	if (!clock || !clock->valid)
		return counter;
	uint64_t cyc = counter;
	if (clock->short_counter)
		cyc = clock->cycles + ((cyc - clock->cycles) & clock->mask);
	/* Split at the shift so that cyc * mult cannot overflow (perf_event.h's recipe). */
	uint64_t quot = clock->shift < 64 ? cyc >> clock->shift : 0;
	uint64_t rem = clock->shift < 64 ? cyc & ((1ull << clock->shift) - 1) : cyc;
	return clock->zero + quot * clock->mult + ((rem * clock->mult) >> clock->shift);
}

bool pb_spe_record_sample(const struct pb_spe_record *r, const struct pb_sample_id *aux_id,
			  const struct pb_spe_clock *clock, struct pb_record *out)
{
	if (!r->has_pc || !r->complete || r->truncated)
		return false;
	memset(out, 0, sizeof *out);
	out->type = PERF_RECORD_SAMPLE;
	out->misc = r->el == 0 ? PERF_RECORD_MISC_USER : PERF_RECORD_MISC_KERNEL;
	struct pb_sample *s = &out->u.sample;
	s->misc = out->misc;
	s->sample_type = PERF_SAMPLE_IP;
	s->ip = r->pc;
	if (r->has_data_va) {
		s->sample_type |= PERF_SAMPLE_ADDR;
		s->addr = r->data_va;
	}
	if (r->has_data_pa) {
		s->sample_type |= PERF_SAMPLE_PHYS_ADDR;
		s->phys_addr = r->data_pa;
	}
	if (r->has_total_lat) {
		s->sample_type |= PERF_SAMPLE_WEIGHT;
		s->weight = r->total_lat;
	}
	if (r->has_timestamp) {
		s->sample_type |= PERF_SAMPLE_TIME;
		s->time = pb_spe_clock_time(clock, r->timestamp);
	}
	if (aux_id && aux_id->present) {
		s->sample_type |= PERF_SAMPLE_TID | PERF_SAMPLE_ID | PERF_SAMPLE_CPU;
		s->pid = aux_id->pid;
		s->tid = aux_id->tid;
		s->id = aux_id->id;
		s->identifier = aux_id->identifier;
		s->cpu = aux_id->cpu;
		out->sample_id = *aux_id;
	}
	return true;
}

uint64_t pb_spe_deliver(const uint8_t *stream, size_t begin, size_t end,
			const struct pb_record *aux_rec, const struct pb_spe_clock *clock,
			pb_record_fn fn, void *ctx, struct pb_ring_stats *stats)
{
	struct pb_spe_decoder d;
	struct pb_spe_record r;
	struct pb_record sample;
	uint64_t delivered = 0;
	if (begin >= end)
		return 0;
	/* The decoder starts at begin, not 0: alignment packets pad to boundaries of the area. */
	pb_spe_decoder_init(&d, stream, end);
	d.pos = begin;
	while (pb_spe_next_record(&d, &r)) {
		if (!pb_spe_record_sample(&r, aux_rec ? &aux_rec->sample_id : NULL, clock,
					  &sample)) {
			if (stats)
				stats->parse_errors++;
			continue;
		}
		delivered++;
		if (fn)
			fn(ctx, &sample);
	}
	return delivered;
}

struct aux_sink {
	struct pb_spe_clock clock;
	pb_record_fn fn;
	void *ctx;
	struct pb_ring_stats *stats;
	uint64_t delivered;
};

static void on_chunk(void *ctx, const uint8_t *stream, size_t begin, size_t end,
		     const struct pb_record *aux_rec)
{
	struct aux_sink *sink = ctx;
	sink->delivered += pb_spe_deliver(stream, begin, end, aux_rec, &sink->clock, sink->fn,
					  sink->ctx, sink->stats);
}

uint64_t pb_spe_aux_deliver(struct pb_aux *aux, const struct pb_record *aux_rec, pb_record_fn fn,
			    void *ctx, struct pb_ring_stats *stats)
{
	struct aux_sink sink = {.fn = fn, .ctx = ctx, .stats = stats};
	pb_spe_clock_from_meta(&sink.clock, aux->ring ? aux->ring->meta : NULL);
	pb_aux_consume(aux, aux_rec, on_chunk, &sink, stats);
	return sink.delivered;
}
