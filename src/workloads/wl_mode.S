/* mode: user code free of loads, stores and page faults, interleaved with two system calls
 * whose kernel paths do load and store (every syscall) and, in the `fault` variant, take a
 * page fault (madvise discards the page, uname's copy_to_user faults it back in).
 * The `touch` variant (its own loop, below) moves that fault to user mode.
 *
 * void pb_wl_mode_loop(void *page, uint64_t iterations, uint64_t nr1, uint64_t nr2)
 *
 * One iteration, 10 instructions, none of which touches memory in user mode:
 *   rdi = page, rsi = 4096, rdx = MADV_DONTNEED, rax = nr1, syscall
 *   rdi = page, rax = nr2, syscall, dec, jnz
 * getppid ignores its arguments, so one loop serves both variants. rbx holds nr2 because the
 * syscall instruction clobbers rcx and r11; it is saved once per call, outside the loop. */
#include "workloads/asm.h"

#define MADV_DONTNEED 4

	PB_CODE_BEGIN(mode)
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

/* void pb_wl_mode_touch_loop(void *page, uint64_t iterations, uint64_t nr_madvise)
 *
 * The `touch` variant: madvise(MADV_DONTNEED) drops the page, then the loop's own store
 * writes to it, so the page fault is taken in user mode, at pb_wl_mode_touch_store. One
 * iteration, 8 instructions: 4 movs, syscall, the store, dec, jnz. An unprivileged user
 * (exclude_kernel=1) counts exactly one fault per iteration here. */
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
	PB_CODE_END(mode)
