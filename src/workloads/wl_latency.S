/* latency-biased: a loop alternating a div path and an add path of equal length, so a
 * facility that samples by time piles its samples after the div while one that samples by
 * instruction count spreads them evenly.
 *
 * void pb_wl_latency_loop(const uint64_t *divisor, uint64_t iterations)
 *
 * One iteration is two passes (a register counts 2n passes down; even: div path, odd: add
 * path).
 * x86-64, 4 instructions per path:
 *   test, jnz(parity)          x2
 *   xor, mov, div (load), jmp  the div path
 *   add x4                     the add path
 *   dec, jnz                   x2                         = 16 instructions
 * AArch64, 3 instructions per path (tbnz tests the parity bit itself; udiv takes registers
 * only, so the divisor is loaded by an ldr of its own, labelled pb_wl_latency_load):
 *   tbnz(parity)               x2
 *   ldr (load), udiv, b        the div path
 *   add x3                     the add path
 *   subs, b.ne                 x2                         = 12 instructions
 * RV64, 3 instructions per path (divu takes registers only, so the divisor has its own ld;
 * the parity is an andi and a bnez):
 *   andi, bnez(parity)         x2
 *   ld (load), divu, j         the div path
 *   add x3                     the add path
 *   addi, bnez                 x2                         = 14 instructions
 * Once per call: x86 lea, mov, ret; AArch64 lsl, mov, ret; RV64 slli, li -1, srli, ret. */
#include "workloads/asm.h"

	PB_CODE_BEGIN(latency)
PB_FUNC(pb_wl_latency_loop)
#if defined(__x86_64__)
	lea	(%rsi,%rsi), %rcx
	mov	$0x7fffffffffff, %r9
1:
	test	$1, %cl
PB_LABEL(pb_wl_latency_parity)
	jnz	2f
	xor	%edx, %edx
	mov	%r9, %rax
PB_LABEL(pb_wl_latency_div)
	divq	(%rdi)
PB_LABEL(pb_wl_latency_join)
	jmp	3f
2:
PB_LABEL(pb_wl_latency_add)
	add	$1, %r8
	add	$1, %r8
	add	$1, %r8
	add	$1, %r8
3:
	dec	%rcx
PB_LABEL(pb_wl_latency_back)
	jnz	1b
#elif defined(__aarch64__)
	lsl	x11, x1, #1
	mov	x12, #0x7fffffffffff
1:
PB_LABEL(pb_wl_latency_parity)
	tbnz	x11, #0, 2f
PB_LABEL(pb_wl_latency_load)
	ldr	x13, [x0]
PB_LABEL(pb_wl_latency_div)
	udiv	x14, x12, x13
PB_LABEL(pb_wl_latency_join)
	b	3f
2:
PB_LABEL(pb_wl_latency_add)
	add	x15, x15, #1
	add	x15, x15, #1
	add	x15, x15, #1
3:
	subs	x11, x11, #1
PB_LABEL(pb_wl_latency_back)
	b.ne	1b
#elif defined(__riscv)
	slli	t4, a1, 1
	li	t2, -1
	srli	t2, t2, 17
1:
	andi	t3, t4, 1
PB_LABEL(pb_wl_latency_parity)
	bnez	t3, 2f
PB_LABEL(pb_wl_latency_load)
	ld	t0, 0(a0)
PB_LABEL(pb_wl_latency_div)
	divu	t1, t2, t0
PB_LABEL(pb_wl_latency_join)
	j	3f
2:
PB_LABEL(pb_wl_latency_add)
	addi	t5, t5, 1
	addi	t5, t5, 1
	addi	t5, t5, 1
3:
	addi	t4, t4, -1
PB_LABEL(pb_wl_latency_back)
	bnez	t4, 1b
#endif
PB_LABEL(pb_wl_latency_ret)
	ret
	.size	pb_wl_latency_loop, . - pb_wl_latency_loop
	PB_CODE_END(latency)
