/* call-chain: ten nested functions with equal work per level (two adds and a store into the
 * level's own slot), for call-graph and unwinding studies.
 *
 * void pb_wl_callchain_loop(uint64_t slots[10], uint64_t iterations)
 *
 * x86-64: one iteration: call level 1 ... level 10, each: add, add, store, call next (levels
 * 1-9), ret; then dec, jnz: 1 + 9*5 + 4 + 2 = 52 instructions. Once: xor, xor, ret.
 *
 * AArch64: bl leaves the return address in x30, so every level (the leaf too, for equal work
 * and so that a frame-pointer unwinder finds every level) builds an AAPCS64 frame record:
 * stp x29, x30 (a store), mov x29, sp; then add, add, store, bl next (levels 1-9), ldp x29,
 * x30 (a load), ret. One iteration: bl, 9*8 + 7, subs, b.ne = 82 instructions. Once: the
 * loop function's own frame record (stp, mov), two movs, ldp, ret = 6.
 *
 * RV64: jal leaves the return address in ra, and RV64 has no pair store, so every level builds
 * a frame record as GCC's -fno-omit-frame-pointer does (ra at s0-8, the caller's s0 at
 * s0-16, what Linux's riscv user unwinder reads): addi sp, sd ra (save), sd s0 (save2),
 * addi s0; then addi, addi, store, jal next (levels 1-9), ld ra (restore), ld s0 (restore2),
 * addi sp, ret. One iteration: jal, 9*12 + 11, addi, bnez = 122 instructions. Once: the loop
 * function's own frame record (addi, sd, sd, addi), two li, ld, ld, addi, ret = 10.
 *
 * The levels are distinct functions (one macro, assembled per level by .irp) so that each
 * level has its own addresses. pb_wl_callchain_table holds per level: store, call (0 on level
 * 10), ret, frame save, frame restore (both 0 on x86, whose call and ret do that), second
 * frame save and restore (RV64 only, else 0). */
#include "workloads/asm.h"

#define PB_CALLCHAIN_DEPTH 10

	/* Level n calls level n+1, which the macro assembles right after it: the call targets
	 * the local label 9 at the (aligned) end of level n, where level n+1 begins. */
	.macro	LEVEL n
PB_FUNC(pb_wl_callchain_l\n)
#if defined(__riscv)
	addi	sp, sp, -16
PB_LABEL(pb_wl_callchain_l\n\()_save)
	sd	ra, 8(sp)
PB_LABEL(pb_wl_callchain_l\n\()_save2)
	sd	s0, 0(sp)
	addi	s0, sp, 16
	addi	t0, t0, 1
	addi	t1, t1, 1
PB_LABEL(pb_wl_callchain_l\n\()_store)
	sd	t0, 8*(\n-1)(a0)
	.if	\n < PB_CALLCHAIN_DEPTH
PB_LABEL(pb_wl_callchain_l\n\()_call)
	jal	ra, 9f
	.endif
PB_LABEL(pb_wl_callchain_l\n\()_restore)
	ld	ra, 8(sp)
PB_LABEL(pb_wl_callchain_l\n\()_restore2)
	ld	s0, 0(sp)
	addi	sp, sp, 16
#elif defined(__aarch64__)
PB_LABEL(pb_wl_callchain_l\n\()_save)
	stp	x29, x30, [sp, #-16]!
	mov	x29, sp
	add	x9, x9, #1
	add	x10, x10, #1
PB_LABEL(pb_wl_callchain_l\n\()_store)
	str	x9, [x0, #8*(\n-1)]
	.if	\n < PB_CALLCHAIN_DEPTH
PB_LABEL(pb_wl_callchain_l\n\()_call)
	bl	9f
	.endif
PB_LABEL(pb_wl_callchain_l\n\()_restore)
	ldp	x29, x30, [sp], #16
#else
	add	$1, %rax
	add	$1, %rdx
PB_LABEL(pb_wl_callchain_l\n\()_store)
	mov	%rax, 8*(\n-1)(%rdi)
	.if	\n < PB_CALLCHAIN_DEPTH
PB_LABEL(pb_wl_callchain_l\n\()_call)
	call	9f
	.endif
#endif
PB_LABEL(pb_wl_callchain_l\n\()_ret)
	ret
	.size	pb_wl_callchain_l\n, . - pb_wl_callchain_l\n
	.pushsection .data.rel.ro, "aw"
	.p2align 3
	.quad	pb_wl_callchain_l\n\()_store
	.if	\n < PB_CALLCHAIN_DEPTH
	.quad	pb_wl_callchain_l\n\()_call
	.else
	.quad	0
	.endif
	.quad	pb_wl_callchain_l\n\()_ret
#if defined(__aarch64__)
	.quad	pb_wl_callchain_l\n\()_save, pb_wl_callchain_l\n\()_restore, 0, 0
#elif defined(__riscv)
	.quad	pb_wl_callchain_l\n\()_save, pb_wl_callchain_l\n\()_restore
	.quad	pb_wl_callchain_l\n\()_save2, pb_wl_callchain_l\n\()_restore2
#else
	.quad	0, 0, 0, 0
#endif
	.popsection
	.p2align 4
9:
	.endm

	.pushsection .data.rel.ro, "aw"
	.p2align 3
	.globl	pb_wl_callchain_table
pb_wl_callchain_table:
	.popsection

	PB_CODE_BEGIN(callchain)
PB_FUNC(pb_wl_callchain_loop)
#if defined(__x86_64__)
	xor	%eax, %eax
	xor	%edx, %edx
1:
PB_LABEL(pb_wl_callchain_call)
	call	pb_wl_callchain_l1
	dec	%rsi
PB_LABEL(pb_wl_callchain_back)
	jnz	1b
#elif defined(__aarch64__)
	stp	x29, x30, [sp, #-16]!
	mov	x29, sp
	mov	x9, #0
	mov	x10, #0
1:
PB_LABEL(pb_wl_callchain_call)
	bl	pb_wl_callchain_l1
	subs	x1, x1, #1
PB_LABEL(pb_wl_callchain_back)
	b.ne	1b
	ldp	x29, x30, [sp], #16
#elif defined(__riscv)
	addi	sp, sp, -16
	sd	ra, 8(sp)
	sd	s0, 0(sp)
	addi	s0, sp, 16
	li	t0, 0
	li	t1, 0
1:
PB_LABEL(pb_wl_callchain_call)
	jal	ra, pb_wl_callchain_l1
	addi	a1, a1, -1
PB_LABEL(pb_wl_callchain_back)
	bnez	a1, 1b
	ld	ra, 8(sp)
	ld	s0, 0(sp)
	addi	sp, sp, 16
#endif
PB_LABEL(pb_wl_callchain_ret)
	ret
	.size	pb_wl_callchain_loop, . - pb_wl_callchain_loop
	.irp	n, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10
	LEVEL	\n
	.endr
	PB_CODE_END(callchain)
