/* mode: user code free of loads, stores and page faults, interleaved with two system calls
 * whose kernel paths do load and store (every syscall) and, in the `fault` variant, take a
 * page fault (madvise discards the page, uname's copy_to_user faults it back in).
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
	PB_CODE_END(mode)
