/* shadow: four adjacent events separated by `gap` nops, in three kinds:
 *   loads     four loads of one word;
 *   branches  four unconditional jumps, each to the instruction after it;
 *   misses    four lines flushed (x86 clflush; AArch64 dc civac), a full barrier (mfence;
 *             dsb sy), then one load from each line. Not on RV64: RV64GC has no instruction
 *             that evicts a line (Zicbom is an extension); its records are all zeros.
 * One iteration, on both architectures: 4 x (event + gap nops), count down, closing branch,
 * and for misses the 4 flushes and the barrier. Once per call: ret; on AArch64 the misses
 * kind also computes three line addresses (dc takes no offset).
 *
 * void pb_wl_shadow_KIND_gGAP(uint64_t *data, uint64_t iterations)
 *
 * Why one body per (kind, gap) instead of a computed jump into padding: the padding between
 * two events is the very thing studied, and any instruction added to enter it at run time
 * (a jump) would be an event placed right in the shadow. So SHADOW_LOOP, one macro, is
 * assembled for every gap 0..64 (.irp over PB_SHADOW_GAPS: both GNU as and clang's assembler
 * take it, where clang refuses macro recursion deeper than 20); pb_wl_shadow_table holds for
 * each, in kind then gap order: entry, event1..event4, closing branch, ret. */
#include "workloads/asm.h"

/* 0..64, the range of the `gap` parameter (wl_shadow.c). */
#define PB_SHADOW_GAPS 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, \
	20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, \
	42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64

	.macro	SHADOW_EVENT kind, gap, n
PB_LABEL(pb_wl_shadow_\kind\()_g\gap\()_ev\n)
	.ifc	\kind, branches
#if defined(__x86_64__)
	jmp	1f
#elif defined(__aarch64__)
	b	1f
#elif defined(__riscv)
	j	1f
#endif
1:
	.else
#if defined(__x86_64__)
	mov	64*(\n-1)*MISSES(%rdi), %rax
#elif defined(__aarch64__)
	ldr	x9, [x0, #64*(\n-1)*MISSES]
#elif defined(__riscv)
	ld	t0, 64*(\n-1)*MISSES(a0)
#endif
	.endif
	.rept	\gap
	nop
	.endr
	.endm

	.macro	SHADOW_LOOP kind, gap
	.ifc	\kind, misses
	MISSES = 1
	.else
	MISSES = 0
	.endif
PB_FUNC(pb_wl_shadow_\kind\()_g\gap)
#if defined(__aarch64__)
	/* dc takes no offset: the lines' addresses are computed once per call, outside the
	 * loop, so an iteration executes exactly what the x86 one does. */
	.if	MISSES
	add	x10, x0, #64
	add	x11, x0, #128
	add	x12, x0, #192
	.endif
#endif
2:
#if defined(__x86_64__)
	.if	MISSES
	clflush	(%rdi)
	clflush	64(%rdi)
	clflush	128(%rdi)
	clflush	192(%rdi)
	mfence
	.endif
	SHADOW_EVENT \kind, \gap, 1
	SHADOW_EVENT \kind, \gap, 2
	SHADOW_EVENT \kind, \gap, 3
	SHADOW_EVENT \kind, \gap, 4
	dec	%rsi
PB_LABEL(pb_wl_shadow_\kind\()_g\gap\()_back)
	jnz	2b
#elif defined(__aarch64__)
	.if	MISSES
	dc	civac, x0
	dc	civac, x10
	dc	civac, x11
	dc	civac, x12
	dsb	sy
	.endif
	SHADOW_EVENT \kind, \gap, 1
	SHADOW_EVENT \kind, \gap, 2
	SHADOW_EVENT \kind, \gap, 3
	SHADOW_EVENT \kind, \gap, 4
	subs	x1, x1, #1
PB_LABEL(pb_wl_shadow_\kind\()_g\gap\()_back)
	b.ne	2b
#elif defined(__riscv)
	SHADOW_EVENT \kind, \gap, 1
	SHADOW_EVENT \kind, \gap, 2
	SHADOW_EVENT \kind, \gap, 3
	SHADOW_EVENT \kind, \gap, 4
	addi	a1, a1, -1
PB_LABEL(pb_wl_shadow_\kind\()_g\gap\()_back)
	bnez	a1, 2b
#endif
PB_LABEL(pb_wl_shadow_\kind\()_g\gap\()_ret)
	ret
	.size	pb_wl_shadow_\kind\()_g\gap, . - pb_wl_shadow_\kind\()_g\gap
	.pushsection .data.rel.ro, "aw"
	.p2align 3
	.quad	pb_wl_shadow_\kind\()_g\gap
	.quad	pb_wl_shadow_\kind\()_g\gap\()_ev1, pb_wl_shadow_\kind\()_g\gap\()_ev2
	.quad	pb_wl_shadow_\kind\()_g\gap\()_ev3, pb_wl_shadow_\kind\()_g\gap\()_ev4
	.quad	pb_wl_shadow_\kind\()_g\gap\()_back, pb_wl_shadow_\kind\()_g\gap\()_ret
	.popsection
	.endm

	.pushsection .data.rel.ro, "aw"
	.p2align 3
	.globl	pb_wl_shadow_table
pb_wl_shadow_table:
	.popsection

	PB_CODE_BEGIN(shadow)
#if defined(__riscv)
	.irp	kind, loads, branches
#else
	.irp	kind, loads, branches, misses
#endif
	.irp	gap, PB_SHADOW_GAPS
	SHADOW_LOOP \kind, \gap
	.endr
	.endr
#if defined(__riscv)
	.pushsection .data.rel.ro, "aw"
	.p2align 3
	.irp	gap, PB_SHADOW_GAPS
	.quad	0, 0, 0, 0, 0, 0, 0
	.endr
	.popsection
#endif
	PB_CODE_END(shadow)
