/* accuracy: a pointer chase, one chasing load per iteration, padded with register adds.
 *
 * void pb_wl_accuracy_loop(void **node, uint64_t iterations, uint64_t pad)
 *
 * One iteration: the computed jump, `pad` x add, the chasing load, the count down, the
 * closing branch = pad + 4 instructions, on every architecture. Once per call: three
 * instructions computing the jump target (RV64: four, lla being auipc + addi), and ret.
 *
 * Why the padding is entered by a computed jump rather than generated per ratio: the ratio
 * is any 1/N with 5 <= N <= 1000, and one body per N would mean a thousand copies of the loop
 * and a thousand label sets. Jumping into a .rept block of identical 4-byte adds at
 * pad_end - 4*pad executes exactly `pad` adds with one fixed instruction (the jump), which is
 * declared, so the truth stays exact and there is one loop and one set of labels. */
#include "workloads/asm.h"

#define PB_ACCURACY_MAX_PAD 996
#define PB_ADD_BYTES 4

	PB_CODE_BEGIN(accuracy)
PB_FUNC(pb_wl_accuracy_loop)
#if defined(__x86_64__)
	lea	pb_wl_accuracy_pad_end(%rip), %r9
	shl	$2, %rdx
	sub	%rdx, %r9
PB_LABEL(pb_wl_accuracy_jump)
	jmp	*%r9
pb_wl_accuracy_pad:
	.rept	PB_ACCURACY_MAX_PAD
	add	$1, %r8
	.endr
pb_wl_accuracy_pad_end:
PB_LABEL(pb_wl_accuracy_chase)
	mov	(%rdi), %rdi
	dec	%rsi
PB_LABEL(pb_wl_accuracy_back)
	jnz	pb_wl_accuracy_jump
#elif defined(__aarch64__)
	/* Every A64 instruction is 4 bytes; adr + lsl + sub keep x86's three set-up steps. */
	adr	x9, pb_wl_accuracy_pad_end
	lsl	x2, x2, #2
	sub	x9, x9, x2
PB_LABEL(pb_wl_accuracy_jump)
	br	x9
pb_wl_accuracy_pad:
	.rept	PB_ACCURACY_MAX_PAD
	add	x10, x10, #1
	.endr
pb_wl_accuracy_pad_end:
PB_LABEL(pb_wl_accuracy_chase)
	ldr	x0, [x0]
	subs	x1, x1, #1
PB_LABEL(pb_wl_accuracy_back)
	b.ne	pb_wl_accuracy_jump
#elif defined(__riscv)
	/* norvc (asm.h): every instruction is 4 bytes, the adds too. */
	lla	t4, pb_wl_accuracy_pad_end
	slli	a2, a2, 2
	sub	t4, t4, a2
PB_LABEL(pb_wl_accuracy_jump)
	jr	t4
pb_wl_accuracy_pad:
	.rept	PB_ACCURACY_MAX_PAD
	addi	t5, t5, 1
	.endr
pb_wl_accuracy_pad_end:
PB_LABEL(pb_wl_accuracy_chase)
	ld	a0, 0(a0)
	addi	a1, a1, -1
PB_LABEL(pb_wl_accuracy_back)
	bnez	a1, pb_wl_accuracy_jump
#endif
PB_LABEL(pb_wl_accuracy_ret)
	ret
	.size	pb_wl_accuracy_loop, . - pb_wl_accuracy_loop
	/* The computed entry relies on every add being PB_ADD_BYTES long. */
	.if	(pb_wl_accuracy_pad_end - pb_wl_accuracy_pad) != PB_ACCURACY_MAX_PAD * PB_ADD_BYTES
	.error	"accuracy padding adds are not 4 bytes each"
	.endif
	PB_CODE_END(accuracy)
