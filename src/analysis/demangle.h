/* C++ names as people read them. A linker symbol of the Itanium C++ ABI ("_ZN2ns3hotEi") is
 * shown as the C++ runtime's own demangler gives it (libstdc++'s __cxa_demangle: "ns::hot(int)",
 * as c++filt, gdb and valgrind show it); the symbol as linked stays beside it where a format has
 * room (pprof's system_name, profile --json's "symbol"). A build without libstdc++ (a cross
 * build whose toolchain has none) leaves names as linked, and `pesbench version` says so. */
#ifndef PB_DEMANGLE_H
#define PB_DEMANGLE_H

#include <stdbool.h>
#include <stddef.h>

/* Longer symbols are shown as linked: the demangler recurses over its input, and a symbol this
 * long comes from a damaged or hostile file, not from a compiler. */
#define PB_DEMANGLE_MAX_SYMBOL 8192

/* The demangled form of symbol, malloc'd (the caller frees it). A suffix from '@' on ("@plt",
 * a symbol version) is kept as is after the demangled name. NULL when symbol is no mangled C++
 * name ("main", "[unknown]", a C name that happens to spell a type, such as "f"), does not
 * demangle, is longer than PB_DEMANGLE_MAX_SYMBOL, or this build has no demangler (or no
 * memory). */
char *pb_demangle(const char *symbol);

/* The name to show for symbol in out (len bytes): demangled, or symbol itself. A name longer
 * than out ends in "..." so that the cut shows. Returns out. */
const char *pb_demangle_into(const char *symbol, char *out, size_t len);

/* Whether this build demangles, and by what (for `pesbench version`). */
bool pb_demangler_available(void);
const char *pb_demangler_name(void);

#endif
