/* SPDX-License-Identifier: MIT */
/* copies.h: rewritten sleds for what the launched command's tree maps
 * after it started.  An object found at a hold keeps its original probes
 * for the process that already maps it; besides, it gets a rewritten copy
 * (sled_rewrite.h, the same checks as the executable's), its rewrite
 * probes are attached, the copy's inode is marked known, and only then is
 * the copy bound over its path in the command's mount namespace
 * (ns_copy.h): every later exec, dlopen or loader mapping of that path in
 * the tree runs nop5 sleds with exact exits.  Both inodes are one object:
 * the same function ids, so counts add up.  An object that cannot be
 * copied is probed on its original only, with one -v line saying why. */
#ifndef SLEDTRACE_COPIES_H
#define SLEDTRACE_COPIES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "object/xray_runtime.h"
#include "process/run_as.h"
#include "process/sled_rewrite.h"
#include "record/hold/objects.h"

struct copies {
	int ns_fd; /* the command's mount namespace (not owned); -1: no copies */
	const char *xray_options;
	bool verbose;
	size_t offered; /* objects [0, offered) were considered */
	uint64_t bound, refused;
};

/* The rewritten copy of o (sled_rewrite.h), unless runtime (o's XRay
 * runtime, xray_runtime.h) patches the sleds itself: then -ENOTSUP.  On
 * failure why says why.  The launched executable and every later copy are
 * made, or refused, here. */
int copies__rewrite(const struct traced_object *o, enum xray_runtime runtime,
		    struct sled_rewrite **out, char *why, size_t whylen);
/* Adds to objs the shared objects with sleds that exe links (needed.h), so
 * that the command's first process too maps their copies.  A loader that
 * cannot be asked is one -v line.  Returns 0 or -ENOMEM. */
int copies__add_linked(struct copies *c, struct object_set *objs, const char *exe,
		       const struct run_as *ra);
/* Gives every object added since the last call a copy, where it can. */
void copies__make(struct copies *c, struct object_set *objs);
/* Binds every queued copy not bound yet, after mark(ctx, dev, ino) made
 * the copy's inode known.  A copy that cannot be bound is dropped (-v).
 * Returns 0, or mark's negative errno. */
int copies__bind(struct copies *c, struct object_set *objs,
		 int (*mark)(void *ctx, uint64_t dev, uint64_t ino), void *ctx);

/* Drops the copies not bound yet: their probes may not all be there. */
void copies__abandon(struct copies *c, struct object_set *objs);

#endif
