/* Conventions shared by the workload loops (wl_*.S, included by the preprocessor).
 *
 * Every loop is a function of the platform's C calling convention that touches only
 * caller-saved registers and no memory but its arguments' and its own stack: the ABI is its
 * complete clobber list, so no caller can be surprised by a register it did not declare (the
 * reference study clobbered %r8 behind the compiler's back).
 *   x86-64 (SysV): rax, rcx, rdx, rsi, rdi, r8-r11.
 *   AArch64 (AAPCS64): x0-x17 and x30 (a loop that calls saves x30 itself, in a register or a
 *   frame record). x16/x17 are free too: the loops branch only to labels of their own file,
 *   so no linker veneer can clobber them.
 *   RV64 (LP64D): a0-a7, t0-t6 and ra (a loop that calls saves ra itself); s0 only when
 *   saved and restored in a frame record.
 * Each .S file holds one loop per architecture, selected by #if defined(__x86_64__) /
 * #elif defined(__aarch64__) / #elif defined(__riscv), with the same exported labels; the
 * declared truth of each architecture's code is in the workload's .c file, under the same #if.
 * RV64 loops are assembled with neither compressed instructions (every instruction is 4 bytes,
 * as the computed jump of `accuracy` needs, and as A64's are) nor linker relaxation (which may
 * rewrite an auipc+addi pair into one instruction and change the declared counts).
 *
 * Labels are exported so that C takes their runtime addresses (&label; the binary is PIE)
 * and tools name them. Alignment padding is only ever placed before a function's entry,
 * never on an executed path, so the declared instruction counts hold whatever the layout. */
#ifndef PB_WL_ASM_H
#define PB_WL_ASM_H

/* ELF symbol types: `@` starts a comment in Arm assembly, `%` works on both. */
#define PB_FUNC(name) .globl name; .type name, %function; .p2align 4; name:
#define PB_LABEL(name) .globl name; .type name, %function; name:
#define PB_CODE_BEGIN(wl) .text; .globl pb_wl_##wl##_code_begin; pb_wl_##wl##_code_begin:
#define PB_CODE_END(wl) .globl pb_wl_##wl##_code_end; pb_wl_##wl##_code_end: \
	.section .note.GNU-stack, "", %progbits

#if defined(__riscv)
#if __riscv_xlen != 64
#error "pesbench's RISC-V workloads are RV64 loops"
#endif
	.option	norvc
	.option	norelax
#elif !defined(__x86_64__) && !defined(__aarch64__)
#error "pesbench's workloads exist for x86-64, AArch64 and RV64 only"
#endif

#endif
