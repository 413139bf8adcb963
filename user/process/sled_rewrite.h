/* SPDX-License-Identifier: MIT */
/* sled_rewrite.h: a copy of an object with its sleds rewritten to 5-byte
 * nops (sled_patch.h), kept in a sealed memfd: nothing on disk, and
 * it is gone once sledtrace and every process that maps it are.  The copy
 * has the original's size, bytes (sleds aside), owner and mode; the
 * launched command is made to run it under the original's path
 * (launch.h), and probes are attached to the inode it runs, through
 * sled_rewrite__path. */
#ifndef SLEDTRACE_SLED_REWRITE_H
#define SLEDTRACE_SLED_REWRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "object/elf_object.h"
#include "object/xray_map.h"

struct sled_rewrite;

/* Builds the copy.  Returns 0, or a negative errno with one line in why
 * saying why this object cannot be rewritten (unexpected sled bytes, an
 * XRay runtime that patches sleds itself, no memfd). */
int sled_rewrite__new(const struct elf_object *obj, const struct xray_map *map,
		      struct sled_rewrite **out, char *why, size_t whylen);
void sled_rewrite__free(struct sled_rewrite *rw);
/* The memfd (close-on-exec); valid until sled_rewrite__free. */
int sled_rewrite__fd(const struct sled_rewrite *rw);
/* Switches to the copy that process pid runs under path (launch.h copies
 * the memfd into a tmpfs of its private mount namespace, since the kernel
 * binds files of that namespace only): from then on fd and path name the
 * inode whose probes fire.  Returns 0 or a negative errno. */
int sled_rewrite__adopt(struct sled_rewrite *rw, pid_t pid, const char *path);
struct launch;
/* Starts the held child (launch.h) so that it runs the copy under path:
 * launch__spawn_over, then sled_rewrite__adopt.  When the copy cannot be
 * used the child runs the original: *rw is freed and NULL, why says what
 * failed.  Returns a negative errno only if no child could be started. */
int sled_rewrite__spawn(struct sled_rewrite **rw, struct launch *l, const char *path,
			char *const argv[], char *why, size_t whylen);
/* Whether this kernel runs a uprobe on a 5-byte nop as a call into a
 * trampoline.  That optimization came with the `uprobe` system call
 * (ARCH_NR_UPROBE, Linux 6.18), which answers ENXIO when called from anywhere
 * but a trampoline and ENOSYS where the kernel lacks it.  Without it a
 * rewritten sled is no cheaper than the original (older kernels may even
 * single-step the nop), so auto uses mixed exits there. */
bool sled_rewrite__kernel_optimizes(void);
/* A path naming the copy's inode in this process, for attaching. */
const char *sled_rewrite__path(const struct sled_rewrite *rw);

#endif
