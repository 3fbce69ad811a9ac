/* SPE packet decoding. Encodings: Arm ARM "Statistical Profiling Extension" packet formats as
 * listed by the kernel's tools/perf/util/arm-spe-decoder headers. */
#include "facilities/spe_packet.h"
#include "util/kit.h"

#include <string.h>

#define HDR_PAD 0x00
#define HDR_END 0x01
#define HDR_TIMESTAMP 0x71
#define HDR_EVENTS 0x42      /* under mask 0xcf: bits 5:4 give the payload size */
#define HDR_SOURCE 0x43      /* under mask 0xcf */
#define HDR_CONTEXT 0x64     /* under mask 0xfc: bits 1:0 index */
#define HDR_OP_TYPE 0x48     /* under mask 0xfc: bits 1:0 class */
#define HDR_EXTENDED 0x20    /* under mask 0xfc: bits 1:0 are index bits 4:3 */
#define HDR_ADDRESS 0xb0     /* under mask 0xf8: bits 2:0 index */
#define HDR_COUNTER 0x98     /* under mask 0xf8: bits 2:0 index */
#define HDR1_ALIGNMENT 0x00  /* second byte of an extended header that pads to a boundary */

static unsigned payload_size(uint8_t hdr)
{
	return 1u << ((hdr >> 4) & 3u);
}

static size_t bad(struct pb_spe_packet *pkt, size_t avail, bool truncated)
{
	pkt->type = PB_SPE_PKT_BAD;
	pkt->truncated = truncated;
	pkt->payload_len = 0;
	pkt->payload = 0;
	/* A cut packet takes the rest of the stream; an unknown header only its first byte, so the
	 * next byte is tried as a header. */
	pkt->len = truncated ? (unsigned)avail : 1;
	return pkt->len;
}

/* Packet with header_len header bytes and a payload sized by the header byte hdr. */
static size_t with_payload(struct pb_spe_packet *pkt, const uint8_t *p, size_t avail,
			   enum pb_spe_pkt_type type, unsigned header_len, uint8_t hdr)
{
	unsigned n = payload_size(hdr);

	pkt->type = type;
	pkt->header_len = header_len;
	if (avail < header_len + n)
		return bad(pkt, avail, true);
	pkt->payload_len = n;
	pkt->payload = pb_load_le(p + header_len, n);
	pkt->len = header_len + n;
	return pkt->len;
}

size_t pb_spe_packet_decode(const void *stream, size_t len, size_t pos, struct pb_spe_packet *pkt)
{
	memset(pkt, 0, sizeof(*pkt));
	if (!stream || pos >= len)
		return 0;

	const uint8_t *p = (const uint8_t *)stream + pos;
	size_t avail = len - pos;
	uint8_t h0 = p[0];

	pkt->header[0] = h0;
	pkt->header_len = 1;
	if (h0 == HDR_PAD) {
		pkt->type = PB_SPE_PKT_PAD;
		pkt->len = 1;
		return 1;
	}
	if (h0 == HDR_END) {
		pkt->type = PB_SPE_PKT_END;
		pkt->len = 1;
		return 1;
	}
	if (h0 == HDR_TIMESTAMP)
		return with_payload(pkt, p, avail, PB_SPE_PKT_TIMESTAMP, 1, h0);
	if ((h0 & 0xcf) == HDR_EVENTS)
		return with_payload(pkt, p, avail, PB_SPE_PKT_EVENTS, 1, h0);
	if ((h0 & 0xcf) == HDR_SOURCE)
		return with_payload(pkt, p, avail, PB_SPE_PKT_DATA_SOURCE, 1, h0);
	if ((h0 & 0xfc) == HDR_CONTEXT) {
		pkt->index = h0 & 3u;
		return with_payload(pkt, p, avail, PB_SPE_PKT_CONTEXT, 1, h0);
	}
	if ((h0 & 0xfc) == HDR_OP_TYPE) {
		pkt->index = h0 & 3u;
		return with_payload(pkt, p, avail, PB_SPE_PKT_OP_TYPE, 1, h0);
	}

	uint8_t h = h0;
	unsigned hlen = 1;
	unsigned index_hi = 0;
	if ((h0 & 0xfc) == HDR_EXTENDED) {
		pkt->header_len = 2;
		if (avail < 2)
			return bad(pkt, avail, true);
		h = p[1];
		pkt->header[1] = h;
		hlen = 2;
		index_hi = (h0 & 3u) << 3;
		if (h == HDR1_ALIGNMENT) {
			/* Padding from this header up to the next boundary of 2^(n+1) bytes. */
			size_t align = (size_t)1 << ((h0 & 0xfu) + 1);
			size_t end = (pos + 2 + align - 1) / align * align;
			pkt->type = PB_SPE_PKT_PAD;
			if (end > len)
				return bad(pkt, avail, true);
			pkt->len = (unsigned)(end - pos);
			return pkt->len;
		}
	}
	if ((h & 0xf8) == HDR_ADDRESS) {
		pkt->index = index_hi | (h & 7u);
		return with_payload(pkt, p, avail, PB_SPE_PKT_ADDRESS, hlen, h);
	}
	if ((h & 0xf8) == HDR_COUNTER) {
		pkt->index = index_hi | (h & 7u);
		return with_payload(pkt, p, avail, PB_SPE_PKT_COUNTER, hlen, h);
	}
	pkt->header_len = 1;
	return bad(pkt, avail, false);
}

const char *pb_spe_packet_type_name(enum pb_spe_pkt_type type)
{
	static const char *const names[] = {
		[PB_SPE_PKT_BAD] = "BAD",         [PB_SPE_PKT_PAD] = "PAD",
		[PB_SPE_PKT_END] = "END",         [PB_SPE_PKT_TIMESTAMP] = "TIMESTAMP",
		[PB_SPE_PKT_ADDRESS] = "ADDRESS", [PB_SPE_PKT_COUNTER] = "COUNTER",
		[PB_SPE_PKT_CONTEXT] = "CONTEXT", [PB_SPE_PKT_OP_TYPE] = "OP_TYPE",
		[PB_SPE_PKT_EVENTS] = "EVENTS",   [PB_SPE_PKT_DATA_SOURCE] = "DATA_SOURCE",
	};
	if ((unsigned)type < PB_ARRAY_SIZE(names))
		return names[type];
	return "?";
}

const char *pb_spe_event_name(unsigned bit)
{
	static const char *const names[26] = {
		[PB_SPE_EV_EXCEPTION] = "EXCEPTION-GEN",
		[PB_SPE_EV_RETIRED] = "RETIRED",
		[PB_SPE_EV_L1D_ACCESS] = "L1D-ACCESS",
		[PB_SPE_EV_L1D_REFILL] = "L1D-REFILL",
		[PB_SPE_EV_TLB_ACCESS] = "TLB-ACCESS",
		[PB_SPE_EV_TLB_WALK] = "TLB-REFILL",
		[PB_SPE_EV_NOT_TAKEN] = "NOT-TAKEN",
		[PB_SPE_EV_MISPREDICTED] = "MISPRED",
		[PB_SPE_EV_LLC_ACCESS] = "LLC-ACCESS",
		[PB_SPE_EV_LLC_MISS] = "LLC-REFILL",
		[PB_SPE_EV_REMOTE] = "REMOTE-ACCESS",
		[PB_SPE_EV_MISALIGNED] = "ALIGNMENT",
		[PB_SPE_EV_TRANSACTIONAL] = "TXN",
		[PB_SPE_EV_PARTIAL_PREDICATE] = "SVE-PARTIAL-PRED",
		[PB_SPE_EV_EMPTY_PREDICATE] = "SVE-EMPTY-PRED",
		[PB_SPE_EV_L2D_ACCESS] = "L2D-ACCESS",
		[PB_SPE_EV_L2D_MISS] = "L2D-MISS",
		[PB_SPE_EV_CACHE_DATA_MODIFIED] = "HITM",
		[PB_SPE_EV_RECENTLY_FETCHED] = "LFB",
		[PB_SPE_EV_DATA_SNOOPED] = "SNOOPED",
		[PB_SPE_EV_STREAMING_SVE] = "STREAMING-SVE",
		[PB_SPE_EV_SMCU] = "SMCU",
	};
	return bit < 26 ? names[bit] : NULL;
}

uint32_t pb_spe_op_flags(unsigned cls, uint8_t v, unsigned *sve_evl)
{
	uint32_t f = 0;
	unsigned evl = 32u << ((v >> 4) & 7u);

	if (sve_evl)
		*sve_evl = 0;
	switch (cls) {
	case PB_SPE_OP_CLASS_OTHER:
		if ((v & 0x89) == 0x08) {
			f |= PB_SPE_OPF_SVE;
			if (v & 0x02)
				f |= PB_SPE_OPF_FP;
			if (v & 0x04)
				f |= PB_SPE_OPF_PREDICATED;
			if (sve_evl)
				*sve_evl = evl;
		} else if (v & 0x01) {
			f |= PB_SPE_OPF_COND_SELECT;
		}
		break;
	case PB_SPE_OP_CLASS_LDST:
		f |= (v & 0x01) ? PB_SPE_OPF_STORE : PB_SPE_OPF_LOAD;
		if ((v & 0xe2) == 0x02) {
			if (v & 0x04)
				f |= PB_SPE_OPF_ATOMIC;
			if (v & 0x08)
				f |= PB_SPE_OPF_EXCLUSIVE;
			if (v & 0x10)
				f |= PB_SPE_OPF_ACQ_REL;
		}
		/* Subclass = bits 7:1. MEMSET is encoded 0x25, a store, so compare without bit 0. */
		switch (v & 0xfe) {
		case 0x00: f |= PB_SPE_OPF_GP_REG; break;
		case 0x04: f |= PB_SPE_OPF_SIMD_FP; break;
		case 0x10: f |= PB_SPE_OPF_UNSPEC_REG; break;
		case 0x30: f |= PB_SPE_OPF_NV_SYSREG; break;
		case 0x14: f |= PB_SPE_OPF_MTE_TAG; break;
		case 0x20: f |= PB_SPE_OPF_MEMCPY; break;
		case 0x24: f |= PB_SPE_OPF_MEMSET; break;
		default: break;
		}
		if ((v & 0x0a) == 0x08) {
			f |= PB_SPE_OPF_SVE;
			if (v & 0x04)
				f |= PB_SPE_OPF_PREDICATED;
			if (v & 0x80)
				f |= PB_SPE_OPF_GATHER_SCATTER;
			if (sve_evl)
				*sve_evl = evl;
		}
		break;
	case PB_SPE_OP_CLASS_BRANCH:
		if (v & 0x01)
			f |= PB_SPE_OPF_CONDITIONAL;
		if (v & 0x02)
			f |= PB_SPE_OPF_INDIRECT;
		if (v & 0x04)
			f |= PB_SPE_OPF_GCS;
		switch ((v >> 3) & 3u) {
		case 1: f |= PB_SPE_OPF_CALL; break;
		case 2: f |= PB_SPE_OPF_RETURN; break;
		case 3: f |= PB_SPE_OPF_OTHER_CR; break;
		default: break;
		}
		break;
	default:
		break;
	}
	return f;
}

void pb_spe_decoder_init(struct pb_spe_decoder *d, const void *buf, size_t len)
{
	d->buf = buf;
	d->len = buf ? len : 0;
	d->pos = 0;
}

static void take_address(struct pb_spe_record *r, const struct pb_spe_packet *pkt)
{
	uint64_t v = pkt->payload;
	uint64_t low56 = v & ((1ull << 56) - 1);
	bool ns = (v >> 63) & 1u;
	unsigned el = (unsigned)((v >> 61) & 3u);
	/* Kernel code addresses (non-secure EL1, or EL2 under VHE) have the top byte all ones. */
	uint64_t code = (ns && (el == 1 || el == 2)) ? (low56 | (0xffull << 56)) : low56;

	switch (pkt->index) {
	case PB_SPE_ADDR_PC:
		r->has_pc = true;
		r->pc = code;
		r->el = el;
		r->ns = ns;
		break;
	case PB_SPE_ADDR_BRANCH_TARGET:
		r->has_target = true;
		r->target = code;
		r->target_el = el;
		r->target_ns = ns;
		break;
	case PB_SPE_ADDR_PREV_BRANCH_TARGET:
		r->has_prev_target = true;
		r->prev_target = code;
		break;
	case PB_SPE_ADDR_DATA_VA:
		r->has_data_va = true;
		r->data_va_tag = (uint8_t)(v >> 56);
		/* The top byte is a tag; bits 55:52 all ones mark a kernel (TTBR1) address. */
		r->data_va = ((low56 >> 52) & 0xf) == 0xf ? (low56 | (0xffull << 56)) : low56;
		break;
	case PB_SPE_ADDR_DATA_PA:
		r->has_data_pa = true;
		r->data_pa = low56;
		r->data_pa_ns = ns;
		r->data_pa_ch = (v >> 62) & 1u;
		r->data_pa_pat = (unsigned)((v >> 56) & 0xfu);
		break;
	default:
		break; /* indices this decoder does not know are skipped, not errors */
	}
}

static void take_counter(struct pb_spe_record *r, const struct pb_spe_packet *pkt)
{
	uint32_t v = (uint32_t)pkt->payload;

	switch (pkt->index) {
	case PB_SPE_COUNTER_TOTAL_LAT:
		r->has_total_lat = true;
		r->total_lat = v;
		break;
	case PB_SPE_COUNTER_ISSUE_LAT:
		r->has_issue_lat = true;
		r->issue_lat = v;
		break;
	case PB_SPE_COUNTER_XLAT_LAT:
		r->has_xlat_lat = true;
		r->xlat_lat = v;
		break;
	default:
		break;
	}
}

int pb_spe_next_record(struct pb_spe_decoder *d, struct pb_spe_record *rec)
{
	struct pb_spe_packet pkt;
	bool started = false;

	memset(rec, 0, sizeof(*rec));
	while (d->pos < d->len) {
		size_t at = d->pos;
		size_t n = pb_spe_packet_decode(d->buf, d->len, at, &pkt);
		if (n == 0)
			break;
		d->pos += n;
		/* Padding between records belongs to no record. */
		if (pkt.type == PB_SPE_PKT_PAD && !started)
			continue;
		if (!started) {
			started = true;
			rec->offset = at;
		}
		rec->length = d->pos - rec->offset;
		switch (pkt.type) {
		case PB_SPE_PKT_BAD:
			if (pkt.truncated)
				rec->truncated = true;
			else
				rec->bad_packets++;
			break;
		case PB_SPE_PKT_PAD:
			break;
		case PB_SPE_PKT_END:
			rec->complete = true;
			return 1;
		case PB_SPE_PKT_TIMESTAMP:
			rec->has_timestamp = true;
			rec->timestamp = pkt.payload;
			rec->complete = true;
			return 1;
		case PB_SPE_PKT_ADDRESS:
			take_address(rec, &pkt);
			break;
		case PB_SPE_PKT_COUNTER:
			take_counter(rec, &pkt);
			break;
		case PB_SPE_PKT_CONTEXT:
			rec->has_context = true;
			rec->context_index = pkt.index;
			rec->context = (uint32_t)pkt.payload;
			break;
		case PB_SPE_PKT_OP_TYPE:
			rec->has_op = true;
			rec->op_class = pkt.index;
			rec->op_raw = (uint8_t)pkt.payload;
			rec->op_flags = pb_spe_op_flags(pkt.index, rec->op_raw, &rec->sve_evl);
			break;
		case PB_SPE_PKT_EVENTS:
			rec->has_events = true;
			rec->events = pkt.payload;
			rec->events_len = pkt.payload_len;
			break;
		case PB_SPE_PKT_DATA_SOURCE:
			rec->has_data_source = true;
			rec->data_source = pkt.payload;
			break;
		}
	}
	return started ? 1 : 0;
}
