/* Names for the stubs of an object's procedure linkage table. No symbol table covers .plt, so
 * elfutils names no address in it; perf synthesizes one symbol per stub, and pesbench's profiles
 * are compared with perf's by name, so pesbench synthesizes the same ones, by perf 6.1's rules
 * (tools/perf/util/symbol-elf.c, dso__synthesize_plt_symbols):
 *   - the relocations are .rela.plt, else .rel.plt, and must refer to .dynsym; the stubs are
 *     .plt's, and nothing is synthesized when either section is missing (perf 6.1 reads no
 *     .plt.sec and names no .plt.got);
 *   - .plt starts with a header, then one stub per relocation in relocation order; header and
 *     stub sizes are fixed on ARM (20, 12), AArch64 (32, 16), SPARC (48, 12) and SPARC V9
 *     (128, 32), and .plt's entry size elsewhere (x86: 16 and 16);
 *   - the stub of relocation i is named after its .dynsym symbol, "NAME@plt", and "@plt" when
 *     the relocation names no symbol (an IRELATIVE one: libc's own IFUNCs).
 * perf places the stubs at .plt's file offset where pesbench uses link-time addresses: the two
 * are one in the objects linkers make (.plt's offset equals its address), and differ for a
 * .plt whose offset does not: there perf's own names are wrong. The names here are the
 * symbols as linked; what shows them demangles a C++ one, keeping its "@plt" (demangle.h). */
#ifndef PB_PLT_SYMBOLS_H
#define PB_PLT_SYMBOLS_H

#include <gelf.h>
#include <stddef.h>
#include <stdint.h>

struct pb_plt_symbol {
	uint64_t start;  /* link-time address */
	uint64_t size;
	char *name;      /* owned by the table */
};

/* An object's PLT stubs in address order (the stubs are consecutive, so relocation order). */
struct pb_plt_table {
	struct pb_plt_symbol *v;
	size_t n;
};

/* Builds the table of elf's PLT (an empty one when perf would synthesize none): 0, or -1 when
 * out of memory (the table is then empty). */
int pb_plt_table_build(Elf *elf, struct pb_plt_table *t);
/* The stub holding addr, or NULL. */
const struct pb_plt_symbol *pb_plt_table_find(const struct pb_plt_table *t, uint64_t addr);
void pb_plt_table_free(struct pb_plt_table *t);

#endif
