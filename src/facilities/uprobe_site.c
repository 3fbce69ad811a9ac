/* What the kernel does with the instruction a uprobe replaces, and so what every hit costs.
 *
 * A uprobe writes a breakpoint over the probed instruction. On a hit the kernel either
 * carries the instruction out itself (x86: "emulate", arm64: "simulate"; a few hundred ns) or
 * copies it to a page of its own and single-steps it there (a second trap, ~10 us here). Which
 * one is decided per instruction when the probe is installed, by rules read from Linux 6.18:
 * arch/x86/kernel/uprobes.c (uprobe_init_insn, can_optimize, branch_setup_xol_ops,
 * push_setup_xol_ops) and arch/arm64/kernel/probes/decode-insn.c (arm_probe_decode_insn) with
 * arch/arm64/kernel/probes/uprobes.c. The rules are applied here to the instruction's bytes,
 * decoded with capstone, so that a cost measured on one probe site is only ever used for a
 * site the kernel treats the same way. */
#include "facilities/uprobe.h"

#include <capstone/capstone.h>
#include <stdio.h>
#include <string.h>

/* x86-64 one-byte opcodes the kernel will not probe (its good_insns_64 table, read as facts):
 * the opcodes 64-bit mode no longer has, in/out/ins/outs, int3/int/into/iret, int1, hlt,
 * cli/sti. 0x0f is accepted there, so every two- and three-byte opcode passes this check. */
static bool x86_opcode_refused(uint8_t op)
{
	static const uint8_t refused[] = {
		0x06, 0x07, 0x0e, 0x16, 0x17, 0x1e, 0x1f, 0x27, 0x2f, 0x37, 0x3f, 0x60,
		0x61, 0x62, 0x6c, 0x6d, 0x6e, 0x6f, 0x82, 0x9a, 0xcc, 0xcd, 0xce, 0xcf,
		0xd4, 0xd5, 0xd6, 0xe4, 0xe5, 0xe6, 0xe7, 0xea, 0xec, 0xed, 0xee, 0xef,
		0xf1, 0xf4, 0xfa, 0xfb};
	return memchr(refused, op, sizeof refused) != NULL;
}

/* The multi-byte nops the kernel pads with (x86_nops[len], len <= 8): it treats a probe on
 * one of these exact byte strings as a jump to the next instruction. */
static bool x86_kernel_nop(const uint8_t *code, size_t len)
{
	static const uint8_t nops[9][8] = {
		{0},
		{0x90},
		{0x66, 0x90},
		{0x0f, 0x1f, 0x00},
		{0x0f, 0x1f, 0x40, 0x00},
		{0x0f, 0x1f, 0x44, 0x00, 0x00},
		{0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00},
		{0x0f, 0x1f, 0x80, 0x00, 0x00, 0x00, 0x00},
		{0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00},
	};
	return len >= 1 && len <= 8 && !memcmp(code, nops[len], len);
}

static bool x86_legacy_prefix(uint8_t b)
{
	switch (b) {
	case 0xf0: case 0xf2: case 0xf3: case 0x2e: case 0x36: case 0x3e: case 0x26:
	case 0x64: case 0x65: case 0x66: case 0x67:
		return true;
	}
	return false;
}

static const char *x86_class(const uint8_t *code, size_t len, uint64_t addr,
			     const struct pb_uprobe_kernel *k)
{
	size_t at = 0;
	bool opsize = false, bad_prefix = false;
	for (; at < len && x86_legacy_prefix(code[at]); at++) {
		opsize |= code[at] == 0x66;
		/* a lock or an es/cs/ss/ds override: refused (is_prefix_bad) */
		bad_prefix |= code[at] == 0xf0 || code[at] == 0x2e || code[at] == 0x36 ||
			      code[at] == 0x3e || code[at] == 0x26;
	}
	uint8_t rex = 0;
	if (at < len && (code[at] & 0xf0) == 0x40)
		rex = code[at++];
	if (at >= len || bad_prefix)
		return PB_SITE_REFUSED;
	uint8_t op = code[at];
	uint8_t op2 = at + 1 < len ? code[at + 1] : 0;
	uint8_t modrm_reg = at + 1 < len ? (uint8_t)((code[at + 1] >> 3) & 7) : 0;
	/* mov to ss masks the next instruction's exceptions: never single-stepped */
	if (x86_opcode_refused(op) || (op == 0x8e && modrm_reg == 2))
		return PB_SITE_REFUSED;
	bool nop = op == 0x90 && len - at == 1;
	bool nopl = op == 0x0f && op2 == 0x1f && at + 2 < len && ((code[at + 2] >> 3) & 7) == 0;
	/* Since 6.18 a probe on a 5-byte nop that does not cross a page is rewritten, after its
	 * first hit, into a call to a trampoline that enters the kernel by a syscall: no trap. */
	if (k->nop5_optimized && len == 5 && (nop || nopl) && 4096 - (addr & 4095) >= 5)
		return PB_SITE_OPTIMIZED;
	if (x86_kernel_nop(code, len) || op == 0x90)
		return PB_SITE_EMULATED;
	bool branch = op == 0xeb || op == 0xe9 || op == 0xe8 || (op >= 0x70 && op <= 0x7f) ||
		      (op == 0x0f && op2 >= 0x80 && op2 <= 0x8f);
	if (branch)
		/* a 16-bit branch (0x66) is refused rather than emulated */
		return opsize ? PB_SITE_REFUSED : PB_SITE_EMULATED;
	/* push of a register: emulated, but with a REX prefix only for r8-r15 (0x41) */
	if (op >= 0x50 && op <= 0x57 && (len == 1 || (len == 2 && rex == 0x41)))
		return PB_SITE_EMULATED;
	return PB_SITE_SINGLE_STEPPED;
}

/* A64 hint numbers (CRm:op2) the kernel single-steps: the pointer-authentication and BTI
 * landing pads compilers put at function entries. Every other hint but nop is refused. */
static bool a64_steppable_hint(unsigned imm)
{
	return (imm >= 24 && imm <= 31) || imm == 32 || imm == 34 || imm == 36 || imm == 38;
}

static const char *a64_class(uint32_t w, const struct pb_uprobe_kernel *k)
{
	bool hint = (w & 0xfffff01fu) == 0xd503201fu;
	unsigned hint_imm = (w >> 5) & 0x7f;
	if (hint && hint_imm == 0)
		/* nop: simulated since 6.13, single-stepped before */
		return k->a64_nop_simulated ? PB_SITE_EMULATED : PB_SITE_SINGLE_STEPPED;
	bool b_bl = (w & 0x7c000000u) == 0x14000000u;
	bool b_cond = (w & 0xff000010u) == 0x54000000u;
	bool cb = (w & 0x7e000000u) == 0x34000000u;          /* cbz, cbnz */
	bool tb = (w & 0x7e000000u) == 0x36000000u;          /* tbz, tbnz */
	bool br_blr_ret = (w & 0xff9ffc1fu) == 0xd61f0000u ||  /* br, blr */
			  (w & 0xfffffc1fu) == 0xd65f0000u;    /* ret */
	bool adr = (w & 0x1f000000u) == 0x10000000u;          /* adr, adrp */
	if (b_bl || b_cond || cb || tb || br_blr_ret || adr)
		return PB_SITE_EMULATED;
	if ((w & 0x1c000000u) == 0x14000000u) {
		/* the branch, exception and system class: other register branches, svc/brk,
		 * msr, mrs and the other hints cannot be stepped (barriers can) */
		if ((w & 0xfe000000u) == 0xd6000000u || (w & 0xff000000u) == 0xd4000000u)
			return PB_SITE_REFUSED;
		if ((w & 0xffd00000u) == 0xd5100000u)                /* msr, mrs (register) */
			return PB_SITE_REFUSED;
		if ((w & 0xfff8f01fu) == 0xd500401fu)                /* msr (immediate) */
			return PB_SITE_REFUSED;
		if (hint)
			return a64_steppable_hint(hint_imm) ? PB_SITE_SINGLE_STEPPED
							    : PB_SITE_REFUSED;
		return PB_SITE_SINGLE_STEPPED;
	}
	/* Literal loads read relative to the pc, which is wrong in the kernel's slot, and since
	 * 6.12 no longer simulated for uprobes (only for kprobes); exclusives cannot complete
	 * under single-stepping: both refused. */
	if ((w & 0x3b000000u) == 0x18000000u || (w & 0x3f000000u) == 0x08000000u)
		return PB_SITE_REFUSED;
	return PB_SITE_SINGLE_STEPPED;
}

const char *pb_uprobe_site_class(enum pb_code_isa isa, const uint8_t *code, size_t len,
				 uint64_t addr, const struct pb_uprobe_kernel *kernel, char *insn,
				 size_t insn_len)
{
	if (insn && insn_len)
		insn[0] = 0;
	csh cs;
	bool x86 = isa == PB_ISA_X86_64;
	if (cs_open(x86 ? CS_ARCH_X86 : CS_ARCH_ARM64, x86 ? CS_MODE_64 : CS_MODE_ARM, &cs) !=
	    CS_ERR_OK)
		return NULL;
	cs_insn *one = NULL;
	size_t n = cs_disasm(cs, code, len < 16 ? len : 16, addr, 1, &one);
	const char *cls = PB_SITE_REFUSED;   /* the kernel refuses what it cannot decode */
	if (n == 1) {
		if (insn && insn_len)
			snprintf(insn, insn_len, "%s%s%s", one->mnemonic, one->op_str[0] ? " " : "",
				 one->op_str);
		if (x86) {
			cls = x86_class(code, one->size, addr, kernel);
		} else if (one->size == 4) {
			uint32_t w = (uint32_t)code[0] | (uint32_t)code[1] << 8 |
				     (uint32_t)code[2] << 16 | (uint32_t)code[3] << 24;
			cls = a64_class(w, kernel);
		}
	}
	if (one)
		cs_free(one, n);
	cs_close(&cs);
	return cls;
}

void pb_uprobe_kernel_of(const struct pb_machine *m, struct pb_uprobe_kernel *out)
{
	out->nop5_optimized = pb_machine_kernel_at_least(m, 6, 18);
	out->a64_nop_simulated = pb_machine_kernel_at_least(m, 6, 13);
}
