/* Fuzzes the demangling of symbol names (analysis/demangle.h): a symbol comes from whatever ELF
 * file a profiled program maps, so any bytes. Whatever they are, a name comes back only for a
 * "_Z" symbol within the length limit, it is a string, and the display form fits its buffer,
 * is the demangled name or the symbol itself (or their cut, ending "..."). */
#include "analysis/demangle.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *symbol = malloc(size + 1);
	if (!symbol)
		return 0;
	memcpy(symbol, data, size);
	symbol[size] = '\0';
	char *name = pb_demangle(symbol);
	if (name && (strncmp(symbol, "_Z", 2) || strlen(symbol) > PB_DEMANGLE_MAX_SYMBOL))
		abort();
	const char *whole = name ? name : symbol;
	size_t len = 1 + (size ? data[0] % 64 : 0);
	char out[64];
	pb_demangle_into(symbol, out, len);
	size_t n = strlen(out);
	if (n >= len)
		abort();
	bool cut = strlen(whole) >= len;
	if (!cut ? strcmp(out, whole) != 0
		 : len > 4 && (memcmp(out, whole, n - 3) || strcmp(out + n - 3, "...")))
		abort();
	free(name);
	free(symbol);
	return 0;
}
