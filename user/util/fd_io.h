/* SPDX-License-Identifier: MIT */
/* fd_io.h: writing a whole buffer to a descriptor.  write(2) may write
 * less than asked (pipes, signals) or be interrupted; every caller that
 * needs all of it written goes through this one loop. */
#ifndef SLEDTRACE_FD_IO_H
#define SLEDTRACE_FD_IO_H

#include <stddef.h>

/* 0 once all n bytes are written; -errno, or -EIO when write(2) wrote
 * nothing, otherwise (EINTR is retried). */
int fd_io__write_all(int fd, const void *buf, size_t n);

#endif
