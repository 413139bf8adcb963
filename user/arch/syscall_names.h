/* SPDX-License-Identifier: MIT */
/* syscall_names.h: the target's system calls by number, as its kernel
 * headers name them (generated at build time by gen_syscall_names.py), for
 * record --costs's counts by name. */
#ifndef SLEDTRACE_SYSCALL_NAMES_H
#define SLEDTRACE_SYSCALL_NAMES_H

#include <stdint.h>

extern const char *const syscall_names[];
extern const unsigned syscall_names_n;

/* nr's name; NULL when the headers did not know it. */
const char *syscall_name(uint32_t nr);
/* The number named name ("nr_N" for one without a name), or -1. */
int64_t syscall_number(const char *name);

#endif
