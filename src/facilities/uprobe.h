#ifndef PB_UPROBE_H
#define PB_UPROBE_H

#include "facilities/facility.h"
#include "facilities/machine.h"
#include "util/error.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Finds the file and file offset of a runtime code address of this process, from the ELF
 * program headers of the object that maps it. */
int pb_uprobe_locate(uint64_t addr, char *path, size_t path_len, uint64_t *offset,
		     struct pb_error *err);

enum pb_code_isa { PB_ISA_X86_64, PB_ISA_A64 };

/* The kernel rules that changed between versions. */
struct pb_uprobe_kernel {
	bool nop5_optimized;     /* x86-64, Linux >= 6.18 */
	bool a64_nop_simulated;  /* arm64, Linux >= 6.13 */
};
void pb_uprobe_kernel_of(const struct pb_machine *m, struct pb_uprobe_kernel *out);

/* The class of the instruction at the start of code (len bytes, at runtime address addr) for
 * a uprobe, and its disassembly in insn ("" if none); NULL only when capstone has no decoder
 * for isa. Bytes that do not decode are PB_SITE_REFUSED, as the kernel refuses them. */
const char *pb_uprobe_site_class(enum pb_code_isa isa, const uint8_t *code, size_t len,
				 uint64_t addr, const struct pb_uprobe_kernel *kernel, char *insn,
				 size_t insn_len);

#endif
