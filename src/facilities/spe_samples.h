/* Arm SPE records as samples: each record the hardware wrote for one sampled operation becomes
 * a PERF_RECORD_SAMPLE-shaped struct pb_record, so that everything downstream of the session
 * (tallies, attribution, the experiments) treats SPE like any other sampling facility.
 *
 *   ip       the PC packet (the operation's own address: SPE IPs are exact)
 *   addr     the data virtual address, for loads and stores
 *   phys_addr the data physical address (spe:pa)
 *   weight   the total latency counter (issue to completion, cycles)
 *   time     the TIMESTAMP packet, converted to perf time when the control page says how
 *   misc     user for a PC at EL0, kernel for EL1 and EL2 (a VHE host kernel runs at EL2)
 *   pid, tid, cpu, id: from the sample_id of the PERF_RECORD_AUX that announced the chunk */
#ifndef PB_SPE_SAMPLES_H
#define PB_SPE_SAMPLES_H

#include "facilities/facility.h"
#include "facilities/spe_packet.h"
#include "ring/aux.h"
#include "ring/record.h"
#include "ring/ring.h"

#include <stdbool.h>
#include <stdint.h>

/* The counter-to-perf-time conversion the kernel publishes in the control page. */
struct pb_spe_clock {
	bool valid;              /* cap_user_time_zero: otherwise times stay raw counter values */
	bool short_counter;      /* cap_user_time_short: the counter is time_mask bits wide */
	uint16_t shift;
	uint32_t mult;
	uint64_t zero, cycles, mask;
};

void pb_spe_clock_from_meta(struct pb_spe_clock *clock, const struct perf_event_mmap_page *meta);
/* Perf time of a TIMESTAMP packet value. */
uint64_t pb_spe_clock_time(const struct pb_spe_clock *clock, uint64_t counter);

/* Fills out with the sample one record stands for. False (out untouched) when the record has no
 * PC or was cut short: it cannot be placed. aux_id (may be NULL) is the sample_id of the AUX
 * record; clock may be NULL (raw timestamps). */
bool pb_spe_record_sample(const struct pb_spe_record *r, const struct pb_sample_id *aux_id,
			  const struct pb_spe_clock *clock, struct pb_record *out);

/* Decodes stream[begin, end) and calls fn with one sample per placeable record. Records that
 * cannot be placed are counted in stats->parse_errors (stats may be NULL). Returns the samples
 * delivered. */
uint64_t pb_spe_deliver(const uint8_t *stream, size_t begin, size_t end,
			const struct pb_record *aux_rec, const struct pb_spe_clock *clock,
			pb_record_fn fn, void *ctx, struct pb_ring_stats *stats);

/* What the session calls for every PERF_RECORD_AUX of an SPE event: consumes the chunk through
 * the AUX reader, delivers its samples to fn, advances aux_tail. Returns the samples delivered. */
uint64_t pb_spe_aux_deliver(struct pb_aux *aux, const struct pb_record *aux_rec, pb_record_fn fn,
			    void *ctx, struct pb_ring_stats *stats);

/* Operation types an spe spec filters on (spe:load, :store, :branch), as PB_SPE_FILTER_* bits;
 * 0 when it samples every operation. Defined in spe.c, which owns the option bits. */
#define PB_SPE_FILTER_LOAD 1u
#define PB_SPE_FILTER_STORE 2u
#define PB_SPE_FILTER_BRANCH 4u
unsigned pb_spe_type_filters(const struct pb_spec *spec);

#endif
