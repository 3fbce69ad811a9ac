/* Conventions shared by the workload loops (wl_*.S, included by the preprocessor).
 *
 * Every loop is a function with the SysV calling convention that touches only caller-saved
 * registers (rax, rcx, rdx, rsi, rdi, r8-r11) and no memory but its arguments' and its own
 * stack: the ABI is its complete clobber list, so no caller can be surprised by a register it
 * did not declare (the reference study clobbered %r8 behind the compiler's back).
 *
 * Labels are exported so that C takes their runtime addresses (&label; the binary is PIE)
 * and tools name them. Alignment padding is only ever placed before a function's entry,
 * never on an executed path, so the declared instruction counts hold whatever the layout. */
#ifndef PB_WL_ASM_H
#define PB_WL_ASM_H

#define PB_FUNC(name) .globl name; .type name, @function; .p2align 4; name:
#define PB_LABEL(name) .globl name; .type name, @function; name:
#define PB_CODE_BEGIN(wl) .text; .globl pb_wl_##wl##_code_begin; pb_wl_##wl##_code_begin:
#define PB_CODE_END(wl) .globl pb_wl_##wl##_code_end; pb_wl_##wl##_code_end: \
	.section .note.GNU-stack, "", @progbits

#endif
