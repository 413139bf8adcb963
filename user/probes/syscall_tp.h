/* SPDX-License-Identifier: MIT */
/* syscall_tp.h: a BPF program on one syscall's tracepoint
 * (syscalls/sys_exit_mmap), as a bare link descriptor.  libbpf's
 * attachment keeps a perf event descriptor of its own beside the link,
 * and closing the last reference to a syscall tracepoint waits for grace
 * periods (~80 ms here); a bare descriptor can be handed to a helper to
 * close after sledtrace has finished (link_release.h).
 *
 * The tracepoint's id is only published in tracefs, which a fresh
 * machine does not mount.  It is read from a tracefs that sledtrace's
 * mount namespace already has, else from a detached tracefs mount
 * (fsmount(2)) that is attached to no directory of any namespace and is
 * gone when its descriptor is closed, before this returns. */
#ifndef SLEDTRACE_SYSCALL_TP_H
#define SLEDTRACE_SYSCALL_TP_H

#include <stddef.h>

/* Attaches prog_fd to the tracepoint CATEGORY/NAME.  Returns the link's
 * descriptor, with where the id came from in how ("tracefs at DIR", "a
 * detached tracefs mount"); or a negative errno with why in how (-ENOENT:
 * the kernel has no such tracepoint, -ENODEV: no tracefs). */
int syscall_tp__attach(int prog_fd, const char *category, const char *name, char *how,
		       size_t howlen);

#endif
