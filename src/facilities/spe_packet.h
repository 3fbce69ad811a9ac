/* Arm SPE: the packets of the AUX buffer byte stream, and the records they form.
 *
 * A record is a run of packets that ends with an END packet or a TIMESTAMP packet (a record
 * carries at most one timestamp, always last). Packets have a 1-byte header, or a 2-byte
 * extended header (first byte 0b001000xx) that widens the address/counter index to 5 bits.
 * The decoder reads only inside the bytes it is given; an unknown header becomes a BAD packet of
 * one byte, so decoding resynchronises at the next byte. */
#ifndef PB_SPE_PACKET_H
#define PB_SPE_PACKET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum pb_spe_pkt_type {
	PB_SPE_PKT_BAD,          /* unknown header, or a packet cut by the end of the stream */
	PB_SPE_PKT_PAD,
	PB_SPE_PKT_END,
	PB_SPE_PKT_TIMESTAMP,
	PB_SPE_PKT_ADDRESS,
	PB_SPE_PKT_COUNTER,
	PB_SPE_PKT_CONTEXT,
	PB_SPE_PKT_OP_TYPE,
	PB_SPE_PKT_EVENTS,
	PB_SPE_PKT_DATA_SOURCE,
};

/* Address packet index. */
enum pb_spe_addr_index {
	PB_SPE_ADDR_PC = 0,
	PB_SPE_ADDR_BRANCH_TARGET = 1,
	PB_SPE_ADDR_DATA_VA = 2,
	PB_SPE_ADDR_DATA_PA = 3,
	PB_SPE_ADDR_PREV_BRANCH_TARGET = 4,
};

/* Counter packet index. */
enum pb_spe_counter_index {
	PB_SPE_COUNTER_TOTAL_LAT = 0, /* issue to completion */
	PB_SPE_COUNTER_ISSUE_LAT = 1, /* dispatch to issue */
	PB_SPE_COUNTER_XLAT_LAT = 2,  /* translation table walk */
};

/* Operation type packet class (header bits 1:0). */
enum pb_spe_op_class {
	PB_SPE_OP_CLASS_OTHER = 0,
	PB_SPE_OP_CLASS_LDST = 1,   /* load, store, atomic */
	PB_SPE_OP_CLASS_BRANCH = 2, /* branch or exception return */
};

/* Events packet bits (the same numbers as the event_filter format of the PMU). */
enum pb_spe_event_bit {
	PB_SPE_EV_EXCEPTION = 0,
	PB_SPE_EV_RETIRED = 1,
	PB_SPE_EV_L1D_ACCESS = 2,
	PB_SPE_EV_L1D_REFILL = 3,
	PB_SPE_EV_TLB_ACCESS = 4,
	PB_SPE_EV_TLB_WALK = 5,
	PB_SPE_EV_NOT_TAKEN = 6,
	PB_SPE_EV_MISPREDICTED = 7,
	PB_SPE_EV_LLC_ACCESS = 8,
	PB_SPE_EV_LLC_MISS = 9,
	PB_SPE_EV_REMOTE = 10,
	PB_SPE_EV_MISALIGNED = 11,
	PB_SPE_EV_TRANSACTIONAL = 16,
	PB_SPE_EV_PARTIAL_PREDICATE = 17,
	PB_SPE_EV_EMPTY_PREDICATE = 18,
	PB_SPE_EV_L2D_ACCESS = 19,
	PB_SPE_EV_L2D_MISS = 20,
	PB_SPE_EV_CACHE_DATA_MODIFIED = 21,
	PB_SPE_EV_RECENTLY_FETCHED = 22,
	PB_SPE_EV_DATA_SNOOPED = 23,
	PB_SPE_EV_STREAMING_SVE = 24,
	PB_SPE_EV_SMCU = 25,
};
#define PB_SPE_EV(bit) (1ull << (bit))

struct pb_spe_packet {
	enum pb_spe_pkt_type type;
	unsigned index;          /* ADDRESS/COUNTER index, CONTEXT index, OP_TYPE class */
	unsigned header_len;     /* 1, or 2 for the extended form */
	unsigned payload_len;    /* 0, 1, 2, 4 or 8 */
	unsigned len;            /* bytes the packet takes in the stream */
	uint8_t header[2];
	uint64_t payload;        /* little-endian payload bytes */
	bool truncated;          /* BAD because the stream ended inside the packet */
};

/* Decodes the packet at stream[pos]. Returns the bytes it takes (>= 1; 0 only when pos >= len).
 * pos is needed because the extended alignment header pads up to a boundary of the stream,
 * whose start the AUX buffer keeps page aligned. */
size_t pb_spe_packet_decode(const void *stream, size_t len, size_t pos, struct pb_spe_packet *pkt);
const char *pb_spe_packet_type_name(enum pb_spe_pkt_type type);
/* Name of an events bit ("L1D-REFILL"), NULL for a bit no SPE version defines. */
const char *pb_spe_event_name(unsigned bit);

/* Operation type details. */
enum pb_spe_op_flag {
	PB_SPE_OPF_LOAD        = 1u << 0,  /* ld/st class, bit 0 clear */
	PB_SPE_OPF_STORE       = 1u << 1,  /* ld/st class, bit 0 set */
	PB_SPE_OPF_ATOMIC      = 1u << 2,  /* ld/st: atomic group, AT bit */
	PB_SPE_OPF_EXCLUSIVE   = 1u << 3,  /* ld/st: atomic group, EXCL bit */
	PB_SPE_OPF_ACQ_REL     = 1u << 4,  /* ld/st: atomic group, AR bit */
	PB_SPE_OPF_GP_REG      = 1u << 5,  /* ld/st subclasses: */
	PB_SPE_OPF_SIMD_FP     = 1u << 6,
	PB_SPE_OPF_UNSPEC_REG  = 1u << 7,
	PB_SPE_OPF_NV_SYSREG   = 1u << 8,
	PB_SPE_OPF_MTE_TAG     = 1u << 9,
	PB_SPE_OPF_MEMCPY      = 1u << 10,
	PB_SPE_OPF_MEMSET      = 1u << 11,
	PB_SPE_OPF_SVE         = 1u << 12, /* ld/st SVE, or "other" SVE op */
	PB_SPE_OPF_PREDICATED  = 1u << 13, /* SVE predicated */
	PB_SPE_OPF_GATHER_SCATTER = 1u << 14, /* SVE ld/st gather/scatter */
	PB_SPE_OPF_FP          = 1u << 15, /* "other" SVE floating point */
	PB_SPE_OPF_COND_SELECT = 1u << 16, /* "other": conditional select */
	PB_SPE_OPF_CONDITIONAL = 1u << 17, /* branch: conditional */
	PB_SPE_OPF_INDIRECT    = 1u << 18, /* branch: indirect */
	PB_SPE_OPF_GCS         = 1u << 19, /* branch: guarded control stack */
	PB_SPE_OPF_CALL        = 1u << 20, /* branch: call (BL) */
	PB_SPE_OPF_RETURN      = 1u << 21, /* branch: return */
	PB_SPE_OPF_OTHER_CR    = 1u << 22, /* branch: call-return hint, neither call nor return */
};

/* Decodes an operation type payload of class cls into flags; *sve_evl gets the SVE effective
 * vector length in bits (0 when not SVE). */
uint32_t pb_spe_op_flags(unsigned cls, uint8_t payload, unsigned *sve_evl);

/* One sampled operation. */
struct pb_spe_record {
	size_t offset, length;   /* where the record lies in the stream */
	bool complete;           /* ended by END or TIMESTAMP; false if the stream ended first */
	unsigned bad_packets;    /* unknown headers skipped inside the record */
	bool truncated;          /* the stream ended inside a packet */

	bool has_pc;
	uint64_t pc;             /* bits 55:0, top byte filled for EL1/EL2 non-secure code */
	unsigned el;             /* exception level of the PC, 0-3 */
	bool ns;                 /* non-secure */
	bool has_target;
	uint64_t target;         /* branch target */
	unsigned target_el;
	bool target_ns;
	bool has_prev_target;
	uint64_t prev_target;    /* previous branch target */
	bool has_data_va;
	uint64_t data_va;        /* bits 55:0; top byte 0xff when bits 55:52 are all ones */
	uint8_t data_va_tag;     /* top byte as recorded (top-byte-ignore tag) */
	bool has_data_pa;
	uint64_t data_pa;        /* bits 55:0 */
	bool data_pa_ns, data_pa_ch;
	unsigned data_pa_pat;    /* bits 59:56 */

	bool has_total_lat, has_issue_lat, has_xlat_lat;
	uint32_t total_lat, issue_lat, xlat_lat;

	bool has_events;
	uint64_t events;         /* PB_SPE_EV(bit) */
	unsigned events_len;     /* payload bytes of the events packet */

	bool has_op;
	unsigned op_class;       /* enum pb_spe_op_class */
	uint8_t op_raw;
	uint32_t op_flags;       /* enum pb_spe_op_flag */
	unsigned sve_evl;

	bool has_data_source;
	uint64_t data_source;    /* implementation defined: kept raw */

	bool has_timestamp;
	uint64_t timestamp;

	bool has_context;
	unsigned context_index;  /* 0: CONTEXTIDR_EL1, 1: CONTEXTIDR_EL2 */
	uint32_t context;
};

struct pb_spe_decoder {
	const uint8_t *buf;
	size_t len, pos;
};

void pb_spe_decoder_init(struct pb_spe_decoder *d, const void *buf, size_t len);
/* Fills rec with the next record. Returns 1, or 0 at the end of the stream (PAD-only tails make
 * no record). */
int pb_spe_next_record(struct pb_spe_decoder *d, struct pb_spe_record *rec);

#endif
