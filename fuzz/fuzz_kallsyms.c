/* Fuzzes the readers of the running kernel's symbols (analysis/kallsyms.h): the bytes as a
 * /proc/kallsyms text and as the ELF notes of /sys/kernel/notes. Whatever the bytes, the table
 * is in address order with a name for every symbol, a lookup finds a symbol at or below the
 * address it was given, and a build id is whole hex. */
#include "analysis/kallsyms.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pb_kallsyms k;
	if (pb_kallsyms_parse((const char *)data, size, &k))
		return 0;
	for (size_t i = 0; i < k.n; i++) {
		if (!k.syms[i].name[0] || (i && k.syms[i - 1].addr > k.syms[i].addr))
			abort();
		uint64_t start = 0, probe = k.syms[i].addr + (i & 0xff);
		const char *name = pb_kallsyms_find(&k, probe, &start);
		uint64_t at = 0;
		if (!name || start > probe || !pb_kallsyms_address(&k, k.syms[i].name, &at))
			abort();
	}
	if (k.n && k.syms[0].addr && pb_kallsyms_find(&k, k.syms[0].addr - 1, &(uint64_t){0}))
		abort();
	pb_kallsyms_free(&k);
	char hex[41];
	if (pb_kernel_notes_build_id(data, size, hex, sizeof hex)) {
		size_t n = strlen(hex);
		if (!n || n % 2 || strspn(hex, "0123456789abcdef") != n)
			abort();
	}
	return 0;
}
