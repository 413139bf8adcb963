/* SPDX-License-Identifier: MIT */
/* needed.h: the shared objects an executable links, as its own loader
 * resolves them for the command (`ld.so --list`, run as the command's user
 * with sledtrace's environment, which the command inherits): search paths,
 * $ORIGIN, LD_LIBRARY_PATH and the loader's cache are the loader's business,
 * not ours to imitate.  Only glibc loaders are asked; other executables
 * (static, musl, no ELF) list nothing, and their objects are still found
 * at holds. */
#ifndef SLEDTRACE_NEEDED_H
#define SLEDTRACE_NEEDED_H

#include "process/run_as.h"

/* Calls fn with the absolute path of every object the loader would map
 * for exe (the loader and the vDSO aside); fn's non-zero return stops the
 * walk and is returned.  Returns 0 (also when exe has no glibc loader), or
 * a negative errno when the loader could not be run. */
int needed__each(const char *exe, const struct run_as *ra, int (*fn)(const char *path, void *ctx),
		 void *ctx);

#endif
