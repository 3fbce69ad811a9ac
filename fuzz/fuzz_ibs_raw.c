/* Fuzzes the IBS raw decoder, printer and classifier.
 * Input: byte 0 picks the sample kind (bit 0: op), and the CPU the decoder assumes: bit 1 Zen 4
 * extensions, bit 2 ldlat, bit 3 dtlb_pgsize, bits 4-5 family/model (early family 0x19 with its
 * errata, later 0x19, 0x17, 0x1a). The rest is the PERF_SAMPLE_RAW payload (u32 caps, u64 regs),
 * copied to an exact-size buffer so AddressSanitizer sees any read past it. */
#include "facilities/ibs_raw.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static FILE *sink_file(void)
{
	static FILE *f;
	if (!f)
		f = fopen("/dev/null", "w");
	return f;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const unsigned fam_model[4][2] = { { 0x19, 0x01 }, { 0x19, 0x61 }, { 0x17, 0x31 },
						  { 0x1a, 0x02 } };
	if (size < 1)
		return 0;
	uint8_t sel = data[0];
	struct pb_ibs_cpu cpu = {
		.family = fam_model[(sel >> 4) & 3][0],
		.model = fam_model[(sel >> 4) & 3][1],
		.zen4_ibs_extensions = (sel >> 1) & 1,
		.ldlat = (sel >> 2) & 1,
		.dtlb_pgsize = (sel >> 3) & 1,
	};
	enum pb_ibs_kind kind = (sel & 1) ? PB_IBS_OP : PB_IBS_FETCH;
	size_t len = size - 1;
	uint8_t *payload = malloc(len ? len : 1);
	if (!payload)
		return 0;
	memcpy(payload, data + 1, len);

	struct pb_ibs_sample s;
	struct pb_error err;
	pb_error_clear(&err);
	if (pb_ibs_decode(payload, len, kind, &cpu, &s, &err) == 0) {
		if (s.nregs != pb_ibs_expected_regs(kind, s.caps) || 4 + 8 * (size_t)s.nregs != len)
			abort();
		FILE *f = sink_file();
		if (f)
			pb_ibs_print(f, &s);
		struct pb_ibs_op_class c;
		int rc = pb_ibs_op_classify(&s, &c, &err);
		if ((rc == 0) != (kind == PB_IBS_OP))
			abort();
	} else if (err.msg[0] == 0) {
		abort(); /* every failure must say why */
	}
	free(payload);
	return 0;
}
