/* SPDX-License-Identifier: MIT */
/* scratch_copy.h: a rewritten copy written into a fresh tmpfs, the step
 * before binding it over an object's path.  The kernel binds only files of
 * mounts, not a memfd, so the copy needs a filesystem; a tmpfs mounted for
 * the purpose (never a real filesystem) keeps it off every disk.  Both the
 * launched command's copy (launch.c) and later objects' (ns_copy.c) go
 * this way. */
#ifndef SLEDTRACE_SCRATCH_COPY_H
#define SLEDTRACE_SCRATCH_COPY_H

/* Mounts a fresh tmpfs on a scratch directory of the caller's mount
 * namespace (/tmp, /mnt, /run or /media, the first that works) and returns
 * a descriptor of its root, or -errno; *dir names the mount point.  The
 * root is checked to be on a new device. */
int scratch__mount(const char **dir);
/* Writes src_fd's contents as "copy" in dir_fd with src_fd's owner and
 * mode.  Returns 0 or an errno. */
int scratch__write(int src_fd, int dir_fd);

#endif
