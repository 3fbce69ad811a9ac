#include "analysis/attribution.h"

#include <capstone/capstone.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__)
#define PB_CS_ARCH CS_ARCH_X86
#define PB_CS_MODE CS_MODE_64
#define PB_CS_NAME "x86-64"
#define PB_CS_RESYNC 1
#define PB_CS_ISA "x86_64"
#elif defined(__aarch64__)
#define PB_CS_ARCH CS_ARCH_ARM64
#define PB_CS_MODE CS_MODE_ARM
#define PB_CS_NAME "A64"
#define PB_CS_RESYNC 4
#define PB_CS_ISA "aarch64"
#elif defined(__riscv) && CS_API_MAJOR >= 5
#define PB_CS_ARCH CS_ARCH_RISCV
#define PB_CS_MODE (CS_MODE_RISCV64 | CS_MODE_RISCVC)
#define PB_CS_NAME "RV64"
#define PB_CS_RESYNC 2
#define PB_CS_ISA "riscv64"
#elif defined(__riscv)
/* capstone 4 (Debian 12's) has no RISC-V decoder: pb_capstone_open fails (profiles of other
 * programs need a real decoder); the workloads' code is mapped by length (see below). */
#define PB_RV_LENGTH_ONLY 1
#define PB_CS_NAME "RV64 (capstone 4 has none)"
#define PB_CS_RESYNC 2
#define PB_CS_ISA "riscv64"
#else
#error "attribution: no capstone decoder for this architecture"
#endif

int pb_capstone_open(size_t *handle, struct pb_error *err)
{
#ifdef PB_RV_LENGTH_ONLY
	(void)handle;
	return pb_fail(err, PB_EXIT_UNAVAILABLE, 0,
		       "capstone %d.%d has no RISC-V decoder (it came with capstone 5): install a "
		       "capstone with RISC-V and rebuild pesbench", CS_API_MAJOR, CS_API_MINOR);
#else
	csh h;
	if (cs_open(PB_CS_ARCH, PB_CS_MODE, &h) != CS_ERR_OK)
		return pb_fail(err, PB_EXIT_FAILURE, 0, "capstone cannot open an %s decoder",
			       PB_CS_NAME);
	*handle = h;
	return 0;
#endif
}

unsigned pb_capstone_resync(void)
{
	return PB_CS_RESYNC;
}

const char *pb_code_isa(void)
{
	return PB_CS_ISA;
}

int pb_code_map_decode(struct pb_code_map *map, const uint8_t *code, size_t len, uint64_t begin,
		       struct pb_error *err)
{
	return pb_code_map_decode_isa(map, PB_CS_ISA, code, len, begin, err);
}

/* capstone 4 (Debian 12's, on every host) has no RISC-V decoder. The RV64 code pesbench maps
 * is its workloads', assembled without compressed instructions (workloads/asm.h), so the map
 * splits it by the ISA's length rule alone (low two bits 11: 4 bytes, else 2) and names no
 * mnemonics; a bundle from a riscv64 machine maps the same on any host. */
static int map_rv64_by_length(struct pb_code_map *map, const uint8_t *code, size_t len,
			      uint64_t begin, struct pb_error *err)
{
	map->insns = calloc(len / 2 + 1, sizeof *map->insns);
	if (!map->insns)
		return pb_fail(err, PB_EXIT_FAILURE, 0, "out of memory");
	for (size_t at = 0; at < len;) {
		struct pb_insn *out = &map->insns[map->n++];
		size_t n = (code[at] & 3) == 3 && len - at >= 4 ? 4 : len - at >= 2 ? 2 : 1;
		uint32_t word = 0;
		memcpy(&word, code + at, n);
		out->addr = begin + at;
		out->label = -1;
		out->len = (uint8_t)n;
		snprintf(out->text, sizeof out->text, ".insn 0x%0*x", (int)(2 * n), word);
		at += n;
	}
	return 0;
}

int pb_code_map_decode_isa(struct pb_code_map *map, const char *isa, const uint8_t *code,
			   size_t len, uint64_t begin, struct pb_error *err)
{
	memset(map, 0, sizeof *map);
	map->begin = begin;
	map->end = begin + len;
	if (!strcmp(isa, "riscv64"))
		return map_rv64_by_length(map, code, len, begin, err);
	bool x86 = !strcmp(isa, "x86_64");
	if (!x86 && strcmp(isa, "aarch64"))
		return pb_fail(err, PB_EXIT_BAD_FILE, 0,
			       "no decoder for instruction set '%s' (x86_64, aarch64 and riscv64 are "
			       "known)", isa);
	size_t resync = x86 ? 1 : 4;
	csh handle;
	if (cs_open(x86 ? CS_ARCH_X86 : CS_ARCH_ARM64, x86 ? CS_MODE_64 : CS_MODE_ARM, &handle) !=
	    CS_ERR_OK)
		return pb_fail(err, PB_EXIT_FAILURE, 0, "capstone cannot open an %s decoder",
			       x86 ? "x86-64" : "A64");
	size_t cap = len / 2 + 16;
	map->insns = calloc(cap, sizeof *map->insns);
	if (!map->insns) {
		cs_close(&handle);
		return pb_fail(err, PB_EXIT_FAILURE, 0, "out of memory");
	}
	cs_insn *insn = cs_malloc(handle);
	const uint8_t *p = code;
	size_t left = len;
	uint64_t addr = begin;
	while (left) {
		if (map->n == cap) {
			cap *= 2;
			struct pb_insn *grown = realloc(map->insns, cap * sizeof *grown);
			if (!grown)
				break;
			map->insns = grown;
		}
		struct pb_insn *out = &map->insns[map->n];
		memset(out, 0, sizeof *out);
		out->addr = addr;
		out->label = -1;
		if (cs_disasm_iter(handle, &p, &left, &addr, insn)) {
			out->len = (uint8_t)insn->size;
			/* long operands are cut: the text is for tables, the address identifies */
			if (snprintf(out->text, sizeof out->text, "%s %s", insn->mnemonic,
				     insn->op_str) < 0)
				out->text[0] = '\0';
		} else {
			/* Not an instruction (padding or data): one byte (x86) or word (A64),
			 * and resync after it. */
			size_t skip = left < resync ? left : resync;
			out->len = (uint8_t)skip;
			snprintf(out->text, sizeof out->text, "(byte 0x%02x)", *p);
			p += skip;
			left -= skip;
			addr += skip;
		}
		map->n++;
	}
	cs_free(insn, 1);
	cs_close(&handle);
	return 0;
}

int pb_code_map_build(struct pb_code_map *map, uint64_t begin, uint64_t end,
		      struct pb_error *err)
{
	if (end <= begin)
		return pb_fail(err, PB_EXIT_FAILURE, 0, "empty code range 0x%llx..0x%llx",
			       (unsigned long long)begin, (unsigned long long)end);
	if (pb_code_map_decode(map, (const uint8_t *)(uintptr_t)begin, end - begin, begin, err))
		return -1;
	return 0;
}

void pb_code_map_label(struct pb_code_map *map, uint64_t addr, int label)
{
	long i = pb_code_map_at(map, addr);
	if (i >= 0)
		map->insns[i].label = label;
}

void pb_code_map_free(struct pb_code_map *map)
{
	free(map->insns);
	memset(map, 0, sizeof *map);
}

long pb_code_map_at(const struct pb_code_map *map, uint64_t ip)
{
	size_t lo = 0, hi = map->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (map->insns[mid].addr < ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < map->n && map->insns[lo].addr == ip ? (long)lo : -1;
}

long pb_code_map_before(const struct pb_code_map *map, uint64_t ip)
{
	if (ip == map->end && map->n)
		return (long)map->n - 1;
	long i = pb_code_map_at(map, ip);
	return i > 0 ? i - 1 : -1;
}
