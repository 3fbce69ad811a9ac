/* mix: known loads, stores, branches, taken branches, calls, returns and locked ops.
 *
 * void pb_wl_mix_loop(uint64_t *data, uint64_t iterations)
 *
 * data[0] takes the two locked adds and the load; data[1] the store (the watched word).
 * One iteration, 11 instructions:
 *   call leaf / ret        store (push) + taken branch + call;  load (pop) + taken + return
 *   lock add x2            each a load, a store and a locked op
 *   mov data[0]            load
 *   mov -> data[1]         store
 *   test / jz              a branch never taken: data[0] only grows
 *   jmp                    an unconditional taken branch
 *   dec / jnz              the closing branch, taken */
#include "workloads/asm.h"

	PB_CODE_BEGIN(mix)
PB_FUNC(pb_wl_mix_loop)
1:
PB_LABEL(pb_wl_mix_call)
	call	pb_wl_mix_leaf
PB_LABEL(pb_wl_mix_lock1)
	lock addq $1, (%rdi)
PB_LABEL(pb_wl_mix_lock2)
	lock addq $1, (%rdi)
PB_LABEL(pb_wl_mix_load)
	mov	(%rdi), %rax
PB_LABEL(pb_wl_mix_store)
	mov	%rax, 8(%rdi)
	test	%rax, %rax
PB_LABEL(pb_wl_mix_never)
	jz	3f
PB_LABEL(pb_wl_mix_jump)
	jmp	2f
2:
	dec	%rsi
PB_LABEL(pb_wl_mix_back)
	jnz	1b
3:
PB_LABEL(pb_wl_mix_ret)
	ret
	.size	pb_wl_mix_loop, . - pb_wl_mix_loop
PB_FUNC(pb_wl_mix_leaf)
	ret
	.size	pb_wl_mix_leaf, . - pb_wl_mix_leaf
	PB_CODE_END(mix)
