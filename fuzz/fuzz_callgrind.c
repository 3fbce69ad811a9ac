/* Fuzzes the callgrind profile parser. Input: byte 0 picks whether an object filter is used;
 * the rest is the profile text. Every entry handed back is read so AddressSanitizer sees any
 * out-of-bounds result, and the table must come back sorted with no repeated address. */
#include "analysis/callgrind.h"

#include <stdint.h>
#include <stdlib.h>

static volatile uint64_t sink;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	const char *object = (data[0] & 1) ? "/bin/prog" : NULL;
	struct pb_cg_profile p;
	struct pb_error err;
	if (pb_callgrind_parse((const char *)data + 1, size - 1, object, &p, &err))
		return 0;
	for (size_t i = 0; i < p.n; i++) {
		if (i && p.instr[i - 1].addr >= p.instr[i].addr)
			abort();
		sink += p.instr[i].ir + p.instr[i].dr + p.instr[i].dw;
		if (pb_cg_find(&p, p.instr[i].addr) != &p.instr[i])
			abort();
	}
	sink += pb_cg_ir_range(&p, 0, UINT64_MAX);
	pb_cg_profile_free(&p);
	return 0;
}
