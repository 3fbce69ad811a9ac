/* mode: user code free of loads, stores and page faults, interleaved with two system calls
 * whose kernel paths do load and store (every syscall) and, in the `fault` variant, take a
 * page fault (madvise discards the page, uname's copy_to_user faults it back in).
 * The `touch` variant (its own loop, below) moves that fault to user mode.
 *
 * void pb_wl_mode_loop(void *page, uint64_t iterations, uint64_t nr1, uint64_t nr2)
 *
 * One iteration, 10 instructions, none of which touches memory in user mode:
 *   arg0 = page, arg1 = 4096, arg2 = MADV_DONTNEED, nr = nr1, syscall (AArch64: svc #0)
 *   arg0 = page, nr = nr2, syscall, count down, closing branch
 * getppid ignores its arguments, so one loop serves both variants.
 * x86-64: rbx holds nr2 because the syscall instruction clobbers rcx and r11; it is saved
 * once per call, outside the loop: once = push, 4 movs, pop, ret = 7.
 * AArch64: svc preserves every register but x0, so caller-saved x9-x12 keep the arguments:
 * once = 4 movs, ret = 5.
 * RV64: ecall takes the number in a7 and preserves every register but a0, so t0-t3 keep the
 * arguments: once = 4 mvs, ret = 5; 4096 is one lui (li would be the same lui). */
#include "workloads/asm.h"

#define MADV_DONTNEED 4

/* void pb_wl_mode_touch_loop(void *page, uint64_t iterations, uint64_t nr_madvise)
 *
 * The `touch` variant: madvise(MADV_DONTNEED) drops the page, then the loop's own store
 * writes to it, so the page fault is taken in user mode, at pb_wl_mode_touch_store. One
 * iteration, 8 instructions: 4 movs, syscall, the store, count down, closing branch. Once:
 * x86 3 movs, ret; AArch64 and RV64 4 movs (x86 stores an immediate, A64 and RV64 a register
 * holding 1), ret.
 * An unprivileged user (exclude_kernel=1) counts exactly one fault per iteration here. */

	PB_CODE_BEGIN(mode)
#if defined(__x86_64__)
PB_FUNC(pb_wl_mode_loop)
	push	%rbx
	mov	%rsi, %r8
	mov	%rdi, %r9
	mov	%rdx, %r10
	mov	%rcx, %rbx
1:
	mov	%r9, %rdi
	mov	$4096, %esi
	mov	$MADV_DONTNEED, %edx
	mov	%r10, %rax
PB_LABEL(pb_wl_mode_syscall1)
	syscall
	mov	%r9, %rdi
	mov	%rbx, %rax
PB_LABEL(pb_wl_mode_syscall2)
	syscall
	dec	%r8
PB_LABEL(pb_wl_mode_back)
	jnz	1b
	pop	%rbx
PB_LABEL(pb_wl_mode_ret)
	ret
	.size	pb_wl_mode_loop, . - pb_wl_mode_loop

PB_FUNC(pb_wl_mode_touch_loop)
	mov	%rsi, %r8
	mov	%rdi, %r9
	mov	%rdx, %r10
1:
	mov	%r9, %rdi
	mov	$4096, %esi
	mov	$MADV_DONTNEED, %edx
	mov	%r10, %rax
PB_LABEL(pb_wl_mode_touch_syscall)
	syscall
PB_LABEL(pb_wl_mode_touch_store)
	movb	$1, (%r9)
	dec	%r8
PB_LABEL(pb_wl_mode_touch_back)
	jnz	1b
PB_LABEL(pb_wl_mode_touch_ret)
	ret
	.size	pb_wl_mode_touch_loop, . - pb_wl_mode_touch_loop
#elif defined(__aarch64__)
PB_FUNC(pb_wl_mode_loop)
	mov	x9, x0
	mov	x10, x1
	mov	x11, x2
	mov	x12, x3
1:
	mov	x0, x9
	mov	x1, #4096
	mov	x2, #MADV_DONTNEED
	mov	x8, x11
PB_LABEL(pb_wl_mode_syscall1)
	svc	#0
	mov	x0, x9
	mov	x8, x12
PB_LABEL(pb_wl_mode_syscall2)
	svc	#0
	subs	x10, x10, #1
PB_LABEL(pb_wl_mode_back)
	b.ne	1b
PB_LABEL(pb_wl_mode_ret)
	ret
	.size	pb_wl_mode_loop, . - pb_wl_mode_loop

PB_FUNC(pb_wl_mode_touch_loop)
	mov	x9, x0
	mov	x10, x1
	mov	x11, x2
	mov	w12, #1
1:
	mov	x0, x9
	mov	x1, #4096
	mov	x2, #MADV_DONTNEED
	mov	x8, x11
PB_LABEL(pb_wl_mode_touch_syscall)
	svc	#0
PB_LABEL(pb_wl_mode_touch_store)
	strb	w12, [x9]
	subs	x10, x10, #1
PB_LABEL(pb_wl_mode_touch_back)
	b.ne	1b
PB_LABEL(pb_wl_mode_touch_ret)
	ret
	.size	pb_wl_mode_touch_loop, . - pb_wl_mode_touch_loop
#elif defined(__riscv)
PB_FUNC(pb_wl_mode_loop)
	mv	t0, a0
	mv	t1, a1
	mv	t2, a2
	mv	t3, a3
1:
	mv	a0, t0
	lui	a1, 1
	li	a2, MADV_DONTNEED
	mv	a7, t2
PB_LABEL(pb_wl_mode_syscall1)
	ecall
	mv	a0, t0
	mv	a7, t3
PB_LABEL(pb_wl_mode_syscall2)
	ecall
	addi	t1, t1, -1
PB_LABEL(pb_wl_mode_back)
	bnez	t1, 1b
PB_LABEL(pb_wl_mode_ret)
	ret
	.size	pb_wl_mode_loop, . - pb_wl_mode_loop

PB_FUNC(pb_wl_mode_touch_loop)
	mv	t0, a0
	mv	t1, a1
	mv	t2, a2
	li	t3, 1
1:
	mv	a0, t0
	lui	a1, 1
	li	a2, MADV_DONTNEED
	mv	a7, t2
PB_LABEL(pb_wl_mode_touch_syscall)
	ecall
PB_LABEL(pb_wl_mode_touch_store)
	sb	t3, 0(t0)
	addi	t1, t1, -1
PB_LABEL(pb_wl_mode_touch_back)
	bnez	t1, 1b
PB_LABEL(pb_wl_mode_touch_ret)
	ret
	.size	pb_wl_mode_touch_loop, . - pb_wl_mode_touch_loop
#endif
	PB_CODE_END(mode)
