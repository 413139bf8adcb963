/* SPDX-License-Identifier: MIT */
/* syscall_tp.h: a BPF program on one syscall's tracepoint
 * (syscalls/sys_exit_mmap), as a bare link descriptor.  libbpf's
 * attachment keeps a perf event descriptor of its own beside the link,
 * and closing the last reference to a syscall tracepoint waits for grace
 * periods (~80 ms here); a bare descriptor can be handed to a helper to
 * close after sledtrace has finished (link_release.h). */
#ifndef SLEDTRACE_SYSCALL_TP_H
#define SLEDTRACE_SYSCALL_TP_H

/* Attaches prog_fd to the tracepoint events/CATEGORY/NAME of tracefs.
 * Returns the link's descriptor, or a negative errno (-ENOENT: no such
 * tracepoint, or tracefs is not mounted). */
int syscall_tp__attach(int prog_fd, const char *category, const char *name);

#endif
