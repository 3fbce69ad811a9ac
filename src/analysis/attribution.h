/* Attribution: which instruction a sample's IP stands for. The workload's code is decoded with
 * capstone into an instruction table; an IP maps to the instruction at it, or — for facilities
 * that report the next instruction (data breakpoints, skid) — to the one ending at it (IP+1
 * correction). Labels of the declared truth mark the event-producing instructions. */
#ifndef PB_ATTRIBUTION_H
#define PB_ATTRIBUTION_H

#include "util/error.h"

#include <stddef.h>
#include <stdint.h>

struct pb_insn {
	uint64_t addr;
	uint8_t len;
	int label;              /* index into the truth's labels, -1 if unlabelled */
	char text[56];          /* "mov rax, qword ptr [rdi]" */
};

struct pb_code_map {
	uint64_t begin, end;
	size_t n;
	struct pb_insn *insns;
};

/* Decodes [begin, end) of this process's memory. The caller marks the labels it knows with
 * pb_code_map_label: attribution knows instructions, not workloads. */
int pb_code_map_build(struct pb_code_map *map, uint64_t begin, uint64_t end,
		      struct pb_error *err);
/* Marks the instruction starting at addr with label; no instruction starts there: nothing. */
void pb_code_map_label(struct pb_code_map *map, uint64_t addr, int label);
/* Decodes a byte buffer whose first byte is at address `begin` (for tests and perf.data). */
int pb_code_map_decode(struct pb_code_map *map, const uint8_t *code, size_t len, uint64_t begin,
		       struct pb_error *err);
/* The same for code of an instruction set named as uname's machine names it ("x86_64",
 * "aarch64"), whatever this build runs: a capture from another machine is decoded as there. */
int pb_code_map_decode_isa(struct pb_code_map *map, const char *isa, const uint8_t *code,
			   size_t len, uint64_t begin, struct pb_error *err);
/* The instruction set this build decodes by default ("x86_64" or "aarch64"). */
const char *pb_code_isa(void);
void pb_code_map_free(struct pb_code_map *map);
/* Opens capstone for the instruction set this build runs (x86-64 or A64): pesbench decodes its
 * own workloads and the programs it samples on this machine. handle is a csh. */
int pb_capstone_open(size_t *handle, struct pb_error *err);
/* Bytes to step over an undecodable spot: 1 on x86 (resync), one instruction word on A64. */
unsigned pb_capstone_resync(void);
/* Index of the instruction starting at ip, or -1. */
long pb_code_map_at(const struct pb_code_map *map, uint64_t ip);
/* Index of the instruction that ends at ip (the previous one), or -1. */
long pb_code_map_before(const struct pb_code_map *map, uint64_t ip);

#endif
