/* Fuzzes the uprobe site classifier with arbitrary code bytes, copied to an exact-size buffer so
 * AddressSanitizer sees any read past them, for both instruction sets and both kernel rule
 * sets. Checks its promises: one of the four classes, and a terminated instruction text. */
#include "facilities/uprobe.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	/* the first byte chooses the kernel's rules and the address's place in its page */
	struct pb_uprobe_kernel k = {.nop5_optimized = data[0] & 1, .a64_nop_simulated = data[0] & 2};
	uint64_t addr = 0x400000 + (uint64_t)(data[0] >> 2) * 64;
	size_t n = size - 1;
	uint8_t *buf = malloc(n ? n : 1);
	if (!buf)
		return 0;
	memcpy(buf, data + 1, n);
	for (int isa = 0; isa < 2; isa++) {
		char insn[96];
		memset(insn, 'x', sizeof insn);
		const char *c = pb_uprobe_site_class(isa ? PB_ISA_A64 : PB_ISA_X86_64, buf, n, addr,
						     &k, insn, sizeof insn);
		if (!c)
			continue; /* this capstone has no decoder for the set */
		if (strcmp(c, PB_SITE_EMULATED) && strcmp(c, PB_SITE_SINGLE_STEPPED) &&
		    strcmp(c, PB_SITE_OPTIMIZED) && strcmp(c, PB_SITE_REFUSED))
			abort();
		if (!memchr(insn, 0, sizeof insn))
			abort();
	}
	free(buf);
	return 0;
}
