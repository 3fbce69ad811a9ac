/* bias: four identical loads per iteration (ideal: 25 % of the samples each).
 *
 * void pb_wl_bias_VARIANT(const uint32_t *data, uint64_t iterations)
 *
 * The three variants differ only in what precedes the loads: nothing; a fence that lets no
 * later instruction start before the earlier ones are done (x86 lfence; AArch64 dsb ld, which
 * waits for the earlier loads and holds back every later instruction, then isb, which
 * refetches everything after it); or a flush of the loads' line and a full barrier that makes
 * the first load a likely miss (x86 clflush + mfence; AArch64 dc civac + dsb sy). RV64: the
 * fence is `fence r, rw` (every earlier load done before any later access) then fence.i
 * (refetch, as isb); the miss variant does not exist, as RV64GC has no instruction that evicts
 * a line (Zicbom is an extension): its entry in pb_wl_bias_table is all zeros. Any
 * run-time switch would put an extra instruction, itself a branch, right before the loads
 * whose sampling bias is studied, so one macro body is assembled per variant instead;
 * pb_wl_bias_table gives C the addresses of each variant: entry, prefix, load1..load4,
 * closing branch, ret.
 *
 * data points at the start of a 64-byte line. The loads read the word PB_BIAS_WORD bytes into
 * it and the flush names the line's first byte, so the flush empties the loads' line without
 * touching their word: a watchpoint on that word sees the four loads and nothing else, in
 * every variant and on both architectures. */
#include "workloads/asm.h"

#define PB_BIAS_WORD 8

	.macro	BIAS_LOOP variant, prefix
PB_FUNC(pb_wl_bias_\variant)
1:
#if defined(__x86_64__)
	.if	\prefix == 1
PB_LABEL(pb_wl_bias_\variant\()_fence)
	lfence
	.elseif	\prefix == 2
PB_LABEL(pb_wl_bias_\variant\()_flush)
	clflush	(%rdi)
	mfence
	.endif
PB_LABEL(pb_wl_bias_\variant\()_load1)
	mov	PB_BIAS_WORD(%rdi), %eax
PB_LABEL(pb_wl_bias_\variant\()_load2)
	mov	PB_BIAS_WORD(%rdi), %eax
PB_LABEL(pb_wl_bias_\variant\()_load3)
	mov	PB_BIAS_WORD(%rdi), %eax
PB_LABEL(pb_wl_bias_\variant\()_load4)
	mov	PB_BIAS_WORD(%rdi), %eax
	dec	%rsi
PB_LABEL(pb_wl_bias_\variant\()_back)
	jnz	1b
#elif defined(__aarch64__)
	.if	\prefix == 1
PB_LABEL(pb_wl_bias_\variant\()_fence)
	dsb	ld
	isb
	.elseif	\prefix == 2
PB_LABEL(pb_wl_bias_\variant\()_flush)
	dc	civac, x0
	dsb	sy
	.endif
PB_LABEL(pb_wl_bias_\variant\()_load1)
	ldr	w9, [x0, #PB_BIAS_WORD]
PB_LABEL(pb_wl_bias_\variant\()_load2)
	ldr	w9, [x0, #PB_BIAS_WORD]
PB_LABEL(pb_wl_bias_\variant\()_load3)
	ldr	w9, [x0, #PB_BIAS_WORD]
PB_LABEL(pb_wl_bias_\variant\()_load4)
	ldr	w9, [x0, #PB_BIAS_WORD]
	subs	x1, x1, #1
PB_LABEL(pb_wl_bias_\variant\()_back)
	b.ne	1b
#elif defined(__riscv)
	.if	\prefix == 1
PB_LABEL(pb_wl_bias_\variant\()_fence)
	fence	r, rw
	fence.i
	.endif
PB_LABEL(pb_wl_bias_\variant\()_load1)
	lw	t0, 0(a0)
PB_LABEL(pb_wl_bias_\variant\()_load2)
	lw	t0, 0(a0)
PB_LABEL(pb_wl_bias_\variant\()_load3)
	lw	t0, 0(a0)
PB_LABEL(pb_wl_bias_\variant\()_load4)
	lw	t0, 0(a0)
	addi	a1, a1, -1
PB_LABEL(pb_wl_bias_\variant\()_back)
	bnez	a1, 1b
#endif
PB_LABEL(pb_wl_bias_\variant\()_ret)
	ret
	.size	pb_wl_bias_\variant, . - pb_wl_bias_\variant
	.pushsection .data.rel.ro, "aw"
	.p2align 3
	.quad	pb_wl_bias_\variant
	.if	\prefix == 1
	.quad	pb_wl_bias_\variant\()_fence
	.elseif	\prefix == 2
	.quad	pb_wl_bias_\variant\()_flush
	.else
	.quad	0
	.endif
	.quad	pb_wl_bias_\variant\()_load1, pb_wl_bias_\variant\()_load2
	.quad	pb_wl_bias_\variant\()_load3, pb_wl_bias_\variant\()_load4
	.quad	pb_wl_bias_\variant\()_back, pb_wl_bias_\variant\()_ret
	.popsection
	.endm

	.pushsection .data.rel.ro, "aw"
	.p2align 3
	.globl	pb_wl_bias_table
pb_wl_bias_table:
	.popsection

	PB_CODE_BEGIN(bias)
	BIAS_LOOP plain, 0
	BIAS_LOOP lfence, 1
#if defined(__riscv)
	.pushsection .data.rel.ro, "aw"
	.p2align 3
	.rept	8
	.quad	0
	.endr
	.popsection
#else
	BIAS_LOOP miss, 2
#endif
	PB_CODE_END(bias)
