/* mix: known loads, stores, branches, taken branches, calls, returns and locked ops.
 *
 * void pb_wl_mix_loop(uint64_t *data, uint64_t iterations)
 *
 * data[0] takes the two atomic adds and the load; data[1] the store (the watched word).
 * x86-64, one iteration, 11 instructions:
 *   call leaf / ret        store (push) + taken branch + call;  load (pop) + taken + return
 *   lock add x2            each a load, a store and a locked op
 *   mov data[0]            load
 *   mov -> data[1]         store
 *   test / jz              a branch never taken: data[0] only grows
 *   jmp                    an unconditional taken branch
 *   dec / jnz              the closing branch, taken
 * AArch64, one iteration, 14 instructions:
 *   bl leaf / ret          taken branch + call;  taken branch + return (no memory: x30)
 *   ldxr, add, stxr x2     the atomic add as an exclusive pair (the baseline Armv8.0 has
 *                          no LSE atomics; cortex-a57 among them): ldxr a load, stxr a
 *                          store and the locked op
 *   ldr data[0]            load
 *   str -> data[1]         store
 *   cbz                    a branch never taken: the iteration count is >= 1 before the
 *                          count down
 *   b                      an unconditional taken branch
 *   subs / b.ne            the closing branch, taken
 *   Once: mov x11, x30 (bl overwrites the caller's return address) and ret x11.
 * RV64, one iteration, 10 instructions:
 *   jal leaf / ret         as AArch64's (the return address in ra)
 *   amoadd.d x2            each one instruction, a load, a store and the locked op (the A
 *                          extension is in RV64GC), with no retry to declare
 *   ld data[0], sd data[1], beqz (never taken), j, addi / bnez
 *   Once: mv t5, ra; li t1, 1 (the addend); jr t5.
 * Why the exclusive pairs have no retry loop: a store-exclusive fails whenever an exception
 * (a timer tick, a sampling interrupt) lands between it and its ldxr, and a retry branch
 * would make the instruction count depend on that. Without one every iteration executes the
 * same 14 instructions; a failed stxr only loses that one increment of data[0], which
 * nothing depends on (the never-taken branch tests the count, not data[0]). */
#include "workloads/asm.h"

	PB_CODE_BEGIN(mix)
PB_FUNC(pb_wl_mix_loop)
#if defined(__x86_64__)
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
#elif defined(__aarch64__)
	mov	x11, x30
1:
PB_LABEL(pb_wl_mix_call)
	bl	pb_wl_mix_leaf
PB_LABEL(pb_wl_mix_lock1)
	ldxr	x9, [x0]
	add	x9, x9, #1
PB_LABEL(pb_wl_mix_lock1_store)
	stxr	w10, x9, [x0]
PB_LABEL(pb_wl_mix_lock2)
	ldxr	x9, [x0]
	add	x9, x9, #1
PB_LABEL(pb_wl_mix_lock2_store)
	stxr	w10, x9, [x0]
PB_LABEL(pb_wl_mix_load)
	ldr	x9, [x0]
PB_LABEL(pb_wl_mix_store)
	str	x9, [x0, #8]
PB_LABEL(pb_wl_mix_never)
	cbz	x1, 3f
PB_LABEL(pb_wl_mix_jump)
	b	2f
2:
	subs	x1, x1, #1
PB_LABEL(pb_wl_mix_back)
	b.ne	1b
3:
PB_LABEL(pb_wl_mix_ret)
	ret	x11
#elif defined(__riscv)
	mv	t5, ra
	li	t1, 1
1:
PB_LABEL(pb_wl_mix_call)
	jal	ra, pb_wl_mix_leaf
PB_LABEL(pb_wl_mix_lock1)
	amoadd.d zero, t1, (a0)
PB_LABEL(pb_wl_mix_lock2)
	amoadd.d zero, t1, (a0)
PB_LABEL(pb_wl_mix_load)
	ld	t0, 0(a0)
PB_LABEL(pb_wl_mix_store)
	sd	t0, 8(a0)
PB_LABEL(pb_wl_mix_never)
	beqz	a1, 3f
PB_LABEL(pb_wl_mix_jump)
	j	2f
2:
	addi	a1, a1, -1
PB_LABEL(pb_wl_mix_back)
	bnez	a1, 1b
3:
PB_LABEL(pb_wl_mix_ret)
	jr	t5
#endif
	.size	pb_wl_mix_loop, . - pb_wl_mix_loop
PB_FUNC(pb_wl_mix_leaf)
	ret
	.size	pb_wl_mix_leaf, . - pb_wl_mix_leaf
	PB_CODE_END(mix)
