/* The running kernel's symbols, for naming a recording's kernel addresses: /proc/kallsyms
 * (one "ADDRESS TYPE NAME [MODULE]" a line, kernel text and modules' alike) and the GNU build id
 * in /sys/kernel/notes, which tells this kernel from another of the same release. perf names
 * kernel samples from the same two files when it finds no vmlinux. */
#ifndef PB_ANALYSIS_KALLSYMS_H
#define PB_ANALYSIS_KALLSYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pb_ksym {
	uint64_t addr;
	const char *name;        /* into the table's own copy of the text */
};

/* The code symbols of a kallsyms text (types t, T, w, W), by address. */
struct pb_kallsyms {
	struct pb_ksym *syms;
	size_t n;
	size_t unparsed;         /* lines that were no "ADDRESS TYPE NAME" */
	bool hidden;             /* every address 0: kptr_restrict hides them from this user */
	char *text;
};

/* -1 when out of memory; a text with no code symbol gives an empty table. */
int pb_kallsyms_parse(const char *text, size_t len, struct pb_kallsyms *out);
/* The address of the code symbol called name, false when there is none. */
bool pb_kallsyms_address(const struct pb_kallsyms *k, const char *name, uint64_t *addr);
/* The symbol holding addr (the last one at or below it; a symbol ends where the next begins,
 * so of aliases the last listed holds it), its start in *start; NULL below the first. */
const char *pb_kallsyms_find(const struct pb_kallsyms *k, uint64_t addr, uint64_t *start);
void pb_kallsyms_free(struct pb_kallsyms *k);

/* The GNU build id (NT_GNU_BUILD_ID) among the ELF notes of notes[0..len) (the layout of
 * /sys/kernel/notes), in lower-case hex into hex; false when there is none. */
bool pb_kernel_notes_build_id(const uint8_t *notes, size_t len, char *hex, size_t hex_len);

#endif
