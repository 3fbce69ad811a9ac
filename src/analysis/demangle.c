/* C++ symbol names through libstdc++'s demangler (demangle.h). */
#include "analysis/demangle.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef PB_HAVE_CXA_DEMANGLE
/* libstdc++'s, declared with C linkage in <cxxabi.h>, which C cannot include */
char *__cxa_demangle(const char *mangled, char *buffer, size_t *length, int *status);
#endif

char *pb_demangle(const char *symbol)
{
#ifdef PB_HAVE_CXA_DEMANGLE
	/* Only the ABI's function and object names: given a bare type ("i", "f"), the demangler
	 * would answer "int" or "float" for a C function of that name. */
	if (!symbol || strncmp(symbol, "_Z", 2) || strnlen(symbol, PB_DEMANGLE_MAX_SYMBOL + 1) >
								 PB_DEMANGLE_MAX_SYMBOL)
		return NULL;
	/* "_ZdlPv@plt", "_ZNSt...@@GLIBCXX_3.4": the part after '@' is the linker's, kept as is */
	const char *at = strchr(symbol, '@');
	char *mangled = at ? strndup(symbol, (size_t)(at - symbol)) : NULL;
	if (at && !mangled)
		return NULL;
	int status = -1;
	char *name = __cxa_demangle(mangled ? mangled : symbol, NULL, NULL, &status);
	free(mangled);
	if (status != 0) {
		free(name);
		return NULL;
	}
	if (!at)
		return name;
	char *full = malloc(strlen(name) + strlen(at) + 1);
	if (full)
		strcat(strcpy(full, name), at);
	free(name);
	return full;
#else
	(void)symbol;
	return NULL;
#endif
}

const char *pb_demangle_into(const char *symbol, char *out, size_t len)
{
	if (!len)
		return out;
	char *name = pb_demangle(symbol);
	const char *shown = name ? name : symbol ? symbol : "";
	size_t n = strlen(shown);
	if (n < len) {
		memcpy(out, shown, n + 1);
	} else {
		static const char cut[] = "...";
		size_t keep = len > sizeof cut ? len - sizeof cut : 0;
		memcpy(out, shown, keep);
		snprintf(out + keep, len - keep, "%s", cut);
	}
	free(name);
	return out;
}

bool pb_demangler_available(void)
{
#ifdef PB_HAVE_CXA_DEMANGLE
	return true;
#else
	return false;
#endif
}

const char *pb_demangler_name(void)
{
	return pb_demangler_available()
		? "libstdc++ (__cxa_demangle): C++ names are shown demangled"
		: "none: this build has no libstdc++ to link, so C++ names are shown as linked";
}
