/* SPDX-License-Identifier: MIT */
/* xray_runtime.h: whether an object carries LLVM's own XRay runtime, and
 * whether that runtime will patch the sleds itself.  The runtime rewrites
 * the sled bytes in memory (XRAY_OPTIONS=patch_premain=true, or a call to
 * __xray_patch), and a uprobe on a rewritten sled never fires: the trace
 * then shows no calls at all, so record says why. */
#ifndef SLEDTRACE_XRAY_RUNTIME_H
#define SLEDTRACE_XRAY_RUNTIME_H

#include "object/elf_object.h"

enum xray_runtime {
	XRAY_RUNTIME_NONE,	      /* built with -fnoxray-link-deps: sleds stay ours */
	XRAY_RUNTIME_LINKED,	      /* the runtime is there; it patches only if asked */
	XRAY_RUNTIME_PATCHES_PREMAIN, /* ... and xray_options asks it to before main */
};

/* xray_options: the XRAY_OPTIONS the program will see (may be NULL). */
enum xray_runtime xray_runtime__check(const struct elf_object *obj, const char *xray_options);

#endif
