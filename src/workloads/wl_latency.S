/* latency-biased: a loop alternating a div path and an add path of equal length (4
 * instructions each), so a facility that samples by time piles its samples after the div
 * while one that samples by instruction count spreads them evenly.
 *
 * void pb_wl_latency_loop(const uint64_t *divisor, uint64_t iterations)
 *
 * One iteration is two passes (rcx counts 2n passes down; even: div path, odd: add path):
 *   test, jnz(parity)          x2
 *   xor, mov, div (load), jmp  the div path
 *   add x4                     the add path
 *   dec, jnz                   x2                         = 16 instructions */
#include "workloads/asm.h"

	PB_CODE_BEGIN(latency)
PB_FUNC(pb_wl_latency_loop)
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
PB_LABEL(pb_wl_latency_ret)
	ret
	.size	pb_wl_latency_loop, . - pb_wl_latency_loop
	PB_CODE_END(latency)
