/* busy: a register-only loop, the baseline for the cost of one sample: no memory access, so
 * nothing in it but the sampling interrupt itself can disturb it.
 *
 * void pb_wl_busy_loop(uint64_t iterations)
 *
 * One iteration: 8 independent adds over 4 registers, the count down, the closing branch =
 * 10 instructions, on every architecture. */
#include "workloads/asm.h"

	PB_CODE_BEGIN(busy)
PB_FUNC(pb_wl_busy_loop)
1:
PB_LABEL(pb_wl_busy_add)
#if defined(__x86_64__)
	add	$1, %rax
	add	$1, %rdx
	add	$1, %r8
	add	$1, %r9
	add	$1, %rax
	add	$1, %rdx
	add	$1, %r8
	add	$1, %r9
	dec	%rdi
PB_LABEL(pb_wl_busy_back)
	jnz	1b
#elif defined(__aarch64__)
	add	x9, x9, #1
	add	x10, x10, #1
	add	x11, x11, #1
	add	x12, x12, #1
	add	x9, x9, #1
	add	x10, x10, #1
	add	x11, x11, #1
	add	x12, x12, #1
	subs	x0, x0, #1
PB_LABEL(pb_wl_busy_back)
	b.ne	1b
#elif defined(__riscv)
	addi	t0, t0, 1
	addi	t1, t1, 1
	addi	t2, t2, 1
	addi	t3, t3, 1
	addi	t0, t0, 1
	addi	t1, t1, 1
	addi	t2, t2, 1
	addi	t3, t3, 1
	addi	a0, a0, -1
PB_LABEL(pb_wl_busy_back)
	bnez	a0, 1b
#endif
PB_LABEL(pb_wl_busy_ret)
	ret
	.size	pb_wl_busy_loop, . - pb_wl_busy_loop
	PB_CODE_END(busy)
