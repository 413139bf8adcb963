// SPDX-License-Identifier: MIT
/* probe_sites.c: see probe_sites.h.  Top-level asm keeps the compiler from
 * touching the bytes; each function starts at a function boundary, as a
 * sled does, so the 8 bytes the kernel's nop5 call writes below the stack
 * pointer are dead there too (docs/KERNEL.md, the red zone). */
#include "arch/x86/probe_sites.h"

#define SITE_FN(name, bytes)                                                          \
	__asm__(".text\n.globl " #name "\n.hidden " #name "\n.type " #name            \
		", @function\n"                                                       \
		".p2align 4\n" #name ":\n" bytes "\n.size " #name ", .-" #name "\n"); \
	long name(long)

#define NOP5 ".byte 0x0f,0x1f,0x44,0x00,0x00\n"

SITE_FN(sledtrace_site_nop5, NOP5 "mov %rdi, %rax\nret");
SITE_FN(sledtrace_site_nop5_plain, NOP5 "mov %rdi, %rax\nret");

struct arch_site_fns x86_probe_site(void)
{
	return (struct arch_site_fns){ sledtrace_site_nop5, sledtrace_site_nop5_plain };
}
