/* call-chain: ten nested functions with equal work per level (two adds and a store into the
 * level's own slot), for call-graph and unwinding studies.
 *
 * void pb_wl_callchain_loop(uint64_t slots[10], uint64_t iterations)
 *
 * One iteration: call level 1 ... level 10, each: add, add, store, call next (levels 1-9),
 * ret; then dec, jnz: 1 + 9*5 + 4 + 2 = 52 instructions. The levels are distinct functions
 * (one macro, assembled per level by .irp) so that each level has its own addresses.
 * pb_wl_callchain_table holds per level: store, call (0 on level 10), ret. */
#include "workloads/asm.h"

#define PB_CALLCHAIN_DEPTH 10

	/* Level n calls level n+1, which the macro assembles right after it: the call targets
	 * the local label 9 at the (aligned) end of level n, where level n+1 begins. */
	.macro	LEVEL n
PB_FUNC(pb_wl_callchain_l\n)
	add	$1, %rax
	add	$1, %rdx
PB_LABEL(pb_wl_callchain_l\n\()_store)
	mov	%rax, 8*(\n-1)(%rdi)
	.if	\n < PB_CALLCHAIN_DEPTH
PB_LABEL(pb_wl_callchain_l\n\()_call)
	call	9f
	.endif
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
	xor	%eax, %eax
	xor	%edx, %edx
1:
PB_LABEL(pb_wl_callchain_call)
	call	pb_wl_callchain_l1
	dec	%rsi
PB_LABEL(pb_wl_callchain_back)
	jnz	1b
PB_LABEL(pb_wl_callchain_ret)
	ret
	.size	pb_wl_callchain_loop, . - pb_wl_callchain_loop
	.irp	n, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10
	LEVEL	\n
	.endr
	PB_CODE_END(callchain)
