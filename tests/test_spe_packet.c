/* SPE packets and records from constructed byte streams: every packet type, every address and
 * counter index, the extended header, op type details, records split by END and by TIMESTAMP,
 * padding, garbage resynchronisation and truncation at every length. */
#include "check.h"
#include "facilities/spe_packet.h"
#include "util/kit.h"

struct stream {
	uint8_t b[512];
	size_t n;
};

static void put(struct stream *s, uint8_t byte)
{
	if (s->n < sizeof(s->b))
		s->b[s->n++] = byte;
}

static void put_le(struct stream *s, uint64_t v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		put(s, (uint8_t)(v >> (8 * i)));
}

static unsigned size_code(unsigned bytes)
{
	return bytes == 1 ? 0 : bytes == 2 ? 1 : bytes == 4 ? 2 : 3;
}

static void pkt_addr(struct stream *s, unsigned index, uint64_t payload)
{
	if (index < 8) {
		put(s, (uint8_t)(0xb0 | index));
	} else {
		put(s, (uint8_t)(0x20 | (index >> 3)));
		put(s, (uint8_t)(0xb0 | (index & 7)));
	}
	put_le(s, payload, 8);
}

static void pkt_counter(struct stream *s, unsigned index, uint16_t v)
{
	if (index < 8) {
		put(s, (uint8_t)(0x98 | index));
	} else {
		put(s, (uint8_t)(0x20 | (index >> 3)));
		put(s, (uint8_t)(0x98 | (index & 7)));
	}
	put_le(s, v, 2);
}

static void pkt_events(struct stream *s, uint64_t v, unsigned bytes)
{
	put(s, (uint8_t)(0x42 | (size_code(bytes) << 4)));
	put_le(s, v, bytes);
}

static void pkt_source(struct stream *s, uint64_t v, unsigned bytes)
{
	put(s, (uint8_t)(0x43 | (size_code(bytes) << 4)));
	put_le(s, v, bytes);
}

static void pkt_context(struct stream *s, unsigned index, uint32_t v)
{
	put(s, (uint8_t)(0x64 | index));
	put_le(s, v, 4);
}

static void pkt_op(struct stream *s, unsigned cls, uint8_t v)
{
	put(s, (uint8_t)(0x48 | cls));
	put(s, v);
}

static void pkt_ts(struct stream *s, uint64_t v)
{
	put(s, 0x71);
	put_le(s, v, 8);
}

static struct pb_spe_packet one(const struct stream *s, size_t pos, size_t *len)
{
	struct pb_spe_packet p;
	*len = pb_spe_packet_decode(s->b, s->n, pos, &p);
	return p;
}

static void test_packet_types(void)
{
	struct stream s = { .n = 0 };
	struct pb_spe_packet p;
	size_t n;

	put(&s, 0x00);
	p = one(&s, 0, &n);
	CHECK(p.type == PB_SPE_PKT_PAD && n == 1);
	s.n = 0;
	put(&s, 0x01);
	p = one(&s, 0, &n);
	CHECK(p.type == PB_SPE_PKT_END && n == 1);

	s.n = 0;
	pkt_ts(&s, 0x0123456789abcdefull);
	p = one(&s, 0, &n);
	CHECK(p.type == PB_SPE_PKT_TIMESTAMP && n == 9 && p.payload_len == 8);
	CHECK_EQ_U64(p.payload, 0x0123456789abcdefull);

	static const unsigned sizes[4] = { 1, 2, 4, 8 };
	for (unsigned i = 0; i < 4; i++) {
		uint64_t v = 0x8877665544332211ull;
		uint64_t want = sizes[i] == 8 ? v : v & ((1ull << (8 * sizes[i])) - 1);
		s.n = 0;
		pkt_events(&s, v, sizes[i]);
		p = one(&s, 0, &n);
		CHECK(p.type == PB_SPE_PKT_EVENTS);
		CHECK_EQ_U64(n, 1 + sizes[i]);
		CHECK_EQ_U64(p.payload_len, sizes[i]);
		CHECK_EQ_U64(p.payload, want);
		s.n = 0;
		pkt_source(&s, v, sizes[i]);
		p = one(&s, 0, &n);
		CHECK(p.type == PB_SPE_PKT_DATA_SOURCE);
		CHECK_EQ_U64(n, 1 + sizes[i]);
		CHECK_EQ_U64(p.payload, want);
	}
	for (unsigned idx = 0; idx < 4; idx++) {
		s.n = 0;
		pkt_context(&s, idx, 0xdeadbeef);
		p = one(&s, 0, &n);
		CHECK(p.type == PB_SPE_PKT_CONTEXT && n == 5 && p.index == idx);
		CHECK_EQ_U64(p.payload, 0xdeadbeef);
		s.n = 0;
		pkt_op(&s, idx, 0x5a);
		p = one(&s, 0, &n);
		CHECK(p.type == PB_SPE_PKT_OP_TYPE && n == 2 && p.index == idx);
		CHECK_EQ_U64(p.payload, 0x5a);
	}
	/* Every short address and counter index, and extended ones up to 31. */
	for (unsigned idx = 0; idx < 32; idx++) {
		s.n = 0;
		pkt_addr(&s, idx, 0x1122334455667788ull);
		p = one(&s, 0, &n);
		CHECK(p.type == PB_SPE_PKT_ADDRESS);
		CHECK_EQ_U64(p.index, idx);
		CHECK_EQ_U64(p.header_len, idx < 8 ? 1 : 2);
		CHECK_EQ_U64(n, p.header_len + 8);
		CHECK_EQ_U64(p.payload, 0x1122334455667788ull);
		s.n = 0;
		pkt_counter(&s, idx, 0xbeef);
		p = one(&s, 0, &n);
		CHECK(p.type == PB_SPE_PKT_COUNTER);
		CHECK_EQ_U64(p.index, idx);
		CHECK_EQ_U64(n, p.header_len + 2);
		CHECK_EQ_U64(p.payload, 0xbeef);
	}
	/* The extended form of a low index is the same packet with a 2-byte header. */
	s.n = 0;
	put(&s, 0x20);
	put(&s, 0x9a);
	put_le(&s, 77, 2);
	p = one(&s, 0, &n);
	CHECK(p.type == PB_SPE_PKT_COUNTER && p.index == PB_SPE_COUNTER_XLAT_LAT && n == 4);

	/* Extended alignment header: padding up to a 2^(n+1) boundary of the stream. */
	s.n = 0;
	for (unsigned i = 0; i < 20; i++)
		put(&s, 0);
	s.b[3] = 0x22; /* boundary of 8: bytes 3..7 */
	s.b[4] = 0x00;
	p = one(&s, 3, &n);
	CHECK(p.type == PB_SPE_PKT_PAD);
	CHECK_EQ_U64(n, 5);
	s.b[8] = 0x23; /* boundary of 16: bytes 8..15 */
	s.b[9] = 0x00;
	p = one(&s, 8, &n);
	CHECK(p.type == PB_SPE_PKT_PAD);
	CHECK_EQ_U64(n, 8);
	s.b[17] = 0x23; /* next boundary (32) lies past the end of the stream: cut */
	s.b[18] = 0x00;
	p = one(&s, 17, &n);
	CHECK(p.type == PB_SPE_PKT_BAD && p.truncated);
	CHECK_EQ_U64(n, 3);

	/* Names. */
	CHECK(strcmp(pb_spe_packet_type_name(PB_SPE_PKT_ADDRESS), "ADDRESS") == 0);
	CHECK(strcmp(pb_spe_packet_type_name(PB_SPE_PKT_BAD), "BAD") == 0);
	CHECK(strcmp(pb_spe_packet_type_name((enum pb_spe_pkt_type)99), "?") == 0);
}

/* Every possible first byte: exactly the documented headers are packets, the rest BAD of one
 * byte, and nothing reads past the stream. */
static void test_every_header_byte(void)
{
	unsigned count[PB_SPE_PKT_DATA_SOURCE + 1] = { 0 };
	for (unsigned h = 0; h < 256; h++) {
		uint8_t buf[16];
		memset(buf, 0xff, sizeof(buf));
		buf[0] = (uint8_t)h;
		struct pb_spe_packet p;
		size_t n = pb_spe_packet_decode(buf, sizeof(buf), 0, &p);
		CHECK(n >= 1 && n <= sizeof(buf));
		count[p.type]++;
		if (p.type == PB_SPE_PKT_BAD)
			CHECK(n == 1 && !p.truncated);
	}
	CHECK_EQ_U64(count[PB_SPE_PKT_PAD], 1);
	CHECK_EQ_U64(count[PB_SPE_PKT_END], 1);
	CHECK_EQ_U64(count[PB_SPE_PKT_TIMESTAMP], 1);
	CHECK_EQ_U64(count[PB_SPE_PKT_EVENTS], 4);
	CHECK_EQ_U64(count[PB_SPE_PKT_DATA_SOURCE], 4);
	CHECK_EQ_U64(count[PB_SPE_PKT_CONTEXT], 4);
	CHECK_EQ_U64(count[PB_SPE_PKT_OP_TYPE], 4);
	CHECK_EQ_U64(count[PB_SPE_PKT_ADDRESS], 8);
	CHECK_EQ_U64(count[PB_SPE_PKT_COUNTER], 8);
	CHECK_EQ_U64(count[PB_SPE_PKT_BAD], 256 - 35);
	struct pb_spe_packet p;
	CHECK_EQ_U64(pb_spe_packet_decode(NULL, 10, 0, &p), 0);
	uint8_t b = 0;
	CHECK_EQ_U64(pb_spe_packet_decode(&b, 1, 1, &p), 0);
}

static void test_op_types(void)
{
	unsigned evl = 99;
	/* Load/store class. */
	CHECK_EQ_U64(pb_spe_op_flags(1, 0x00, &evl), PB_SPE_OPF_LOAD | PB_SPE_OPF_GP_REG);
	CHECK_EQ_U64(evl, 0);
	CHECK_EQ_U64(pb_spe_op_flags(1, 0x01, NULL), PB_SPE_OPF_STORE | PB_SPE_OPF_GP_REG);
	CHECK_EQ_U64(pb_spe_op_flags(1, 0x04, NULL), PB_SPE_OPF_LOAD | PB_SPE_OPF_SIMD_FP);
	CHECK_EQ_U64(pb_spe_op_flags(1, 0x05, NULL), PB_SPE_OPF_STORE | PB_SPE_OPF_SIMD_FP);
	CHECK_EQ_U64(pb_spe_op_flags(1, 0x10, NULL), PB_SPE_OPF_LOAD | PB_SPE_OPF_UNSPEC_REG);
	CHECK_EQ_U64(pb_spe_op_flags(1, 0x30, NULL), PB_SPE_OPF_LOAD | PB_SPE_OPF_NV_SYSREG);
	CHECK_EQ_U64(pb_spe_op_flags(1, 0x14, NULL), PB_SPE_OPF_LOAD | PB_SPE_OPF_MTE_TAG);
	CHECK_EQ_U64(pb_spe_op_flags(1, 0x20, NULL), PB_SPE_OPF_LOAD | PB_SPE_OPF_MEMCPY);
	CHECK_EQ_U64(pb_spe_op_flags(1, 0x25, NULL), PB_SPE_OPF_STORE | PB_SPE_OPF_MEMSET);
	CHECK_EQ_U64(pb_spe_op_flags(1, 0x06, NULL), PB_SPE_OPF_LOAD | PB_SPE_OPF_ATOMIC);
	CHECK_EQ_U64(pb_spe_op_flags(1, 0x1b, NULL),
		     PB_SPE_OPF_STORE | PB_SPE_OPF_EXCLUSIVE | PB_SPE_OPF_ACQ_REL);
	CHECK_EQ_U64(pb_spe_op_flags(1, 0x1f, NULL),
		     PB_SPE_OPF_STORE | PB_SPE_OPF_ATOMIC | PB_SPE_OPF_EXCLUSIVE | PB_SPE_OPF_ACQ_REL);
	/* SVE load: bit 3 set, bit 1 clear; EVL 32 << bits 6:4; predicated; gather/scatter. */
	CHECK_EQ_U64(pb_spe_op_flags(1, 0xac, &evl),
		     PB_SPE_OPF_LOAD | PB_SPE_OPF_SVE | PB_SPE_OPF_PREDICATED |
			     PB_SPE_OPF_GATHER_SCATTER);
	CHECK_EQ_U64(evl, 128);
	CHECK_EQ_U64(pb_spe_op_flags(1, 0x79, &evl), PB_SPE_OPF_STORE | PB_SPE_OPF_SVE);
	CHECK_EQ_U64(evl, 32u << 7);
	/* Branch class. */
	CHECK_EQ_U64(pb_spe_op_flags(2, 0x00, NULL), 0);
	CHECK_EQ_U64(pb_spe_op_flags(2, 0x01, NULL), PB_SPE_OPF_CONDITIONAL);
	CHECK_EQ_U64(pb_spe_op_flags(2, 0x02, NULL), PB_SPE_OPF_INDIRECT);
	CHECK_EQ_U64(pb_spe_op_flags(2, 0x04, NULL), PB_SPE_OPF_GCS);
	CHECK_EQ_U64(pb_spe_op_flags(2, 0x08, NULL), PB_SPE_OPF_CALL);
	CHECK_EQ_U64(pb_spe_op_flags(2, 0x12, NULL), PB_SPE_OPF_RETURN | PB_SPE_OPF_INDIRECT);
	CHECK_EQ_U64(pb_spe_op_flags(2, 0x18, NULL), PB_SPE_OPF_OTHER_CR);
	/* Other class. */
	CHECK_EQ_U64(pb_spe_op_flags(0, 0x00, NULL), 0);
	CHECK_EQ_U64(pb_spe_op_flags(0, 0x01, NULL), PB_SPE_OPF_COND_SELECT);
	CHECK_EQ_U64(pb_spe_op_flags(0, 0x1e, &evl),
		     PB_SPE_OPF_SVE | PB_SPE_OPF_FP | PB_SPE_OPF_PREDICATED);
	CHECK_EQ_U64(evl, 64);
	CHECK_EQ_U64(pb_spe_op_flags(3, 0xff, &evl), 0);
	CHECK_EQ_U64(evl, 0);
}

static void test_event_names(void)
{
	static const struct { unsigned bit; const char *name; } names[] = {
		{ 0, "EXCEPTION-GEN" }, { 1, "RETIRED" }, { 2, "L1D-ACCESS" }, { 3, "L1D-REFILL" },
		{ 4, "TLB-ACCESS" }, { 5, "TLB-REFILL" }, { 6, "NOT-TAKEN" }, { 7, "MISPRED" },
		{ 8, "LLC-ACCESS" }, { 9, "LLC-REFILL" }, { 10, "REMOTE-ACCESS" },
		{ 11, "ALIGNMENT" }, { 16, "TXN" }, { 17, "SVE-PARTIAL-PRED" },
		{ 18, "SVE-EMPTY-PRED" }, { 19, "L2D-ACCESS" }, { 20, "L2D-MISS" }, { 21, "HITM" },
		{ 22, "LFB" }, { 23, "SNOOPED" }, { 24, "STREAMING-SVE" }, { 25, "SMCU" },
	};
	unsigned named = 0;
	for (unsigned i = 0; i < PB_ARRAY_SIZE(names); i++) {
		const char *n = pb_spe_event_name(names[i].bit);
		CHECK(n && strcmp(n, names[i].name) == 0);
	}
	for (unsigned b = 0; b < 64; b++)
		named += pb_spe_event_name(b) != NULL;
	CHECK_EQ_U64(named, PB_ARRAY_SIZE(names));
}

/* A load that missed L1 at EL0, with everything a record can carry, ended by a timestamp. */
static void full_record(struct stream *s)
{
	pkt_addr(s, PB_SPE_ADDR_PC, (1ull << 63) | (0ull << 61) | 0x0000aaaabbbb1234ull);
	pkt_op(s, PB_SPE_OP_CLASS_LDST, 0x00);
	pkt_events(s, PB_SPE_EV(PB_SPE_EV_RETIRED) | PB_SPE_EV(PB_SPE_EV_L1D_ACCESS) |
			      PB_SPE_EV(PB_SPE_EV_L1D_REFILL) | PB_SPE_EV(PB_SPE_EV_L2D_MISS),
		   4);
	pkt_counter(s, PB_SPE_COUNTER_ISSUE_LAT, 11);
	pkt_addr(s, PB_SPE_ADDR_DATA_VA, 0x5affffffc0001000ull);
	pkt_addr(s, PB_SPE_ADDR_DATA_PA, (1ull << 63) | (1ull << 62) | (0x7ull << 56) | 0x80001000ull);
	pkt_counter(s, PB_SPE_COUNTER_TOTAL_LAT, 240);
	pkt_counter(s, PB_SPE_COUNTER_XLAT_LAT, 33);
	pkt_source(s, 0x0b, 2);
	pkt_context(s, 1, 4242);
	pkt_ts(s, 123456789);
}

/* A taken branch in the kernel, ended by END. */
static void branch_record(struct stream *s)
{
	pkt_addr(s, PB_SPE_ADDR_PC, (1ull << 63) | (1ull << 61) | 0x00ff800010000000ull);
	pkt_op(s, PB_SPE_OP_CLASS_BRANCH, 0x01);
	pkt_events(s, PB_SPE_EV(PB_SPE_EV_RETIRED) | PB_SPE_EV(PB_SPE_EV_MISPREDICTED), 1);
	pkt_addr(s, PB_SPE_ADDR_BRANCH_TARGET, (1ull << 63) | (1ull << 61) | 0x00ff800010000400ull);
	pkt_addr(s, PB_SPE_ADDR_PREV_BRANCH_TARGET, 0x0000aaaa00000010ull);
	pkt_counter(s, PB_SPE_COUNTER_TOTAL_LAT, 3);
	put(s, 0x01);
}

static void test_records(void)
{
	struct stream s = { .n = 0 };
	struct pb_spe_decoder d;
	struct pb_spe_record r;

	put(&s, 0x00);
	put(&s, 0x00);
	size_t rec1_at = s.n;
	full_record(&s);
	size_t rec2_at = s.n;
	branch_record(&s);
	size_t rec2_end = s.n;
	for (unsigned i = 0; i < 5; i++)
		put(&s, 0x00);
	size_t rec3_at = s.n;
	pkt_addr(&s, PB_SPE_ADDR_PC, 0x400000);
	pkt_op(&s, PB_SPE_OP_CLASS_OTHER, 0x00);
	pkt_addr(&s, PB_SPE_ADDR_DATA_VA, 0x3c00aaaa00001000ull);
	put(&s, 0x01);
	for (unsigned i = 0; i < 3; i++)
		put(&s, 0x00);

	pb_spe_decoder_init(&d, s.b, s.n);
	CHECK(pb_spe_next_record(&d, &r) == 1);
	CHECK(r.complete && !r.truncated && r.bad_packets == 0);
	CHECK_EQ_U64(r.offset, rec1_at);
	CHECK_EQ_U64(r.length, rec2_at - rec1_at);
	CHECK(r.has_pc && r.ns && r.el == 0);
	CHECK_EQ_U64(r.pc, 0x0000aaaabbbb1234ull);
	CHECK(r.has_op && r.op_class == PB_SPE_OP_CLASS_LDST);
	CHECK_EQ_U64(r.op_flags, PB_SPE_OPF_LOAD | PB_SPE_OPF_GP_REG);
	CHECK(r.has_events);
	CHECK_EQ_U64(r.events_len, 4);
	CHECK(r.events & PB_SPE_EV(PB_SPE_EV_L1D_REFILL));
	CHECK(r.events & PB_SPE_EV(PB_SPE_EV_L2D_MISS));
	CHECK(!(r.events & PB_SPE_EV(PB_SPE_EV_LLC_MISS)));
	CHECK(r.has_total_lat && r.has_issue_lat && r.has_xlat_lat);
	CHECK_EQ_U64(r.total_lat, 240);
	CHECK_EQ_U64(r.issue_lat, 11);
	CHECK_EQ_U64(r.xlat_lat, 33);
	CHECK(r.has_data_va);
	CHECK_EQ_U64(r.data_va_tag, 0x5a);
	CHECK_EQ_U64(r.data_va, 0xffffffffc0001000ull); /* bits 55:52 all ones: kernel address */
	CHECK(r.has_data_pa && r.data_pa_ns && r.data_pa_ch);
	CHECK_EQ_U64(r.data_pa_pat, 7);
	CHECK_EQ_U64(r.data_pa, 0x80001000ull);
	CHECK(r.has_data_source);
	CHECK_EQ_U64(r.data_source, 0x0b);
	CHECK(r.has_context && r.context_index == 1);
	CHECK_EQ_U64(r.context, 4242);
	CHECK(r.has_timestamp);
	CHECK_EQ_U64(r.timestamp, 123456789);
	CHECK(!r.has_target && !r.has_prev_target);

	CHECK(pb_spe_next_record(&d, &r) == 1);
	CHECK(r.complete && !r.has_timestamp);
	CHECK_EQ_U64(r.offset, rec2_at);
	CHECK_EQ_U64(r.length, rec2_end - rec2_at);
	CHECK(r.ns && r.el == 1);
	CHECK_EQ_U64(r.pc, 0xffff800010000000ull); /* EL1 non-secure: top byte filled */
	CHECK(r.has_target && r.target_el == 1 && r.target_ns);
	CHECK_EQ_U64(r.target, 0xffff800010000400ull);
	CHECK(r.has_prev_target);
	CHECK_EQ_U64(r.prev_target, 0x0000aaaa00000010ull);
	CHECK_EQ_U64(r.op_flags, PB_SPE_OPF_CONDITIONAL);
	CHECK_EQ_U64(r.events_len, 1);
	CHECK(r.events & PB_SPE_EV(PB_SPE_EV_MISPREDICTED));
	CHECK(!r.has_data_va && !r.has_data_pa && !r.has_issue_lat);

	CHECK(pb_spe_next_record(&d, &r) == 1);
	CHECK_EQ_U64(r.offset, rec3_at);
	CHECK(r.complete);
	CHECK(!r.ns && r.el == 0);
	CHECK_EQ_U64(r.pc, 0x400000);
	CHECK(r.has_op && r.op_class == PB_SPE_OP_CLASS_OTHER);
	CHECK_EQ_U64(r.data_va, 0x0000aaaa00001000ull); /* user address: the tag is dropped */
	CHECK_EQ_U64(r.data_va_tag, 0x3c);
	CHECK(pb_spe_next_record(&d, &r) == 0); /* trailing padding is no record */
	CHECK(pb_spe_next_record(&d, &r) == 0);

	/* Records split by TIMESTAMP only (no END). */
	s.n = 0;
	pkt_addr(&s, PB_SPE_ADDR_PC, 0x1000);
	pkt_ts(&s, 1);
	pkt_addr(&s, PB_SPE_ADDR_PC, 0x2000);
	pkt_ts(&s, 2);
	pb_spe_decoder_init(&d, s.b, s.n);
	unsigned recs = 0;
	uint64_t pcs = 0, tss = 0;
	while (pb_spe_next_record(&d, &r) == 1) {
		recs++;
		pcs += r.pc;
		tss += r.timestamp;
		CHECK(r.complete);
	}
	CHECK_EQ_U64(recs, 2);
	CHECK_EQ_U64(pcs, 0x3000);
	CHECK_EQ_U64(tss, 3);

	/* Only padding: no record. Empty stream: no record. */
	memset(s.b, 0, 64);
	pb_spe_decoder_init(&d, s.b, 64);
	CHECK(pb_spe_next_record(&d, &r) == 0);
	pb_spe_decoder_init(&d, NULL, 10);
	CHECK(pb_spe_next_record(&d, &r) == 0);

	/* Unknown address / counter indices are skipped without harm. */
	s.n = 0;
	pkt_addr(&s, 5, 0x1234);
	pkt_addr(&s, 17, 0x1234);
	pkt_counter(&s, 3, 9);
	pkt_counter(&s, 31, 9);
	put(&s, 0x01);
	pb_spe_decoder_init(&d, s.b, s.n);
	CHECK(pb_spe_next_record(&d, &r) == 1);
	CHECK(r.complete && r.bad_packets == 0);
	CHECK(!r.has_pc && !r.has_target && !r.has_data_va && !r.has_total_lat &&
	      !r.has_issue_lat && !r.has_xlat_lat);
}

static void test_garbage_resync(void)
{
	struct stream s = { .n = 0 };
	struct pb_spe_decoder d;
	struct pb_spe_record r;

	put(&s, 0xff);
	put(&s, 0x02);
	put(&s, 0x21); /* extended header whose second byte is neither address nor counter */
	put(&s, 0x55);
	branch_record(&s);
	put(&s, 0x10);
	full_record(&s);
	pb_spe_decoder_init(&d, s.b, s.n);
	CHECK(pb_spe_next_record(&d, &r) == 1);
	CHECK(r.complete);
	CHECK_EQ_U64(r.bad_packets, 4);
	CHECK_EQ_U64(r.offset, 0);
	CHECK_EQ_U64(r.pc, 0xffff800010000000ull);
	CHECK_EQ_U64(r.target, 0xffff800010000400ull);
	CHECK(pb_spe_next_record(&d, &r) == 1);
	CHECK_EQ_U64(r.bad_packets, 1);
	CHECK_EQ_U64(r.timestamp, 123456789);
	CHECK_EQ_U64(r.total_lat, 240);
	CHECK(pb_spe_next_record(&d, &r) == 0);
}

/* Every prefix of a two-record stream: no read past it, whole records only where their end
 * fits, and a cut record reported as incomplete. */
static void test_truncated_every_length(void)
{
	struct stream s = { .n = 0 };
	full_record(&s);
	size_t end1 = s.n;
	branch_record(&s);
	size_t end2 = s.n;
	pkt_addr(&s, 9, 0x42); /* extended header, to cut between its two header bytes */

	unsigned wrong = 0;
	for (size_t len = 0; len <= s.n; len++) {
		uint8_t *heap = malloc(len ? len : 1);
		memcpy(heap, s.b, len);
		struct pb_spe_decoder d;
		struct pb_spe_record r;
		pb_spe_decoder_init(&d, heap, len);
		unsigned complete = 0, incomplete = 0, truncated = 0;
		size_t covered = 0;
		while (pb_spe_next_record(&d, &r) == 1) {
			if (r.complete)
				complete++;
			else
				incomplete++;
			truncated += r.truncated;
			covered = r.offset + r.length;
			if (r.offset + r.length > len)
				wrong++;
		}
		unsigned want_complete = (len >= end1) + (len >= end2);
		bool cut = len != 0 && len != end1 && len != end2;
		if (complete != want_complete || incomplete != (cut ? 1u : 0u) || covered != len) {
			fprintf(stderr, "  len %zu: %u complete, %u incomplete (%u truncated), "
				"covered %zu\n", len, complete, incomplete, truncated, covered);
			wrong++;
		}
		/* Packet level: every decode stays inside the stream. */
		for (size_t pos = 0; pos < len;) {
			struct pb_spe_packet p;
			size_t n = pb_spe_packet_decode(heap, len, pos, &p);
			if (n == 0 || pos + n > len) {
				wrong++;
				break;
			}
			pos += n;
		}
		free(heap);
	}
	CHECK_EQ_U64(wrong, 0);

	/* A cut inside a payload is flagged truncated; a cut between packets is not. */
	struct pb_spe_decoder d;
	struct pb_spe_record r;
	pb_spe_decoder_init(&d, s.b, 5); /* inside the PC payload */
	CHECK(pb_spe_next_record(&d, &r) == 1);
	CHECK(!r.complete && r.truncated && !r.has_pc);
	pb_spe_decoder_init(&d, s.b, 9); /* just after the PC packet */
	CHECK(pb_spe_next_record(&d, &r) == 1);
	CHECK(!r.complete && !r.truncated && r.has_pc);
	pb_spe_decoder_init(&d, s.b + end2, 1); /* first byte of an extended header */
	CHECK(pb_spe_next_record(&d, &r) == 1);
	CHECK(r.truncated);
}

int main(void)
{
	test_packet_types();
	test_every_header_byte();
	test_op_types();
	test_event_names();
	test_records();
	test_garbage_resync();
	test_truncated_every_length();
	return pb_check_done("test_spe_packet");
}
