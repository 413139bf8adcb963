/* SPDX-License-Identifier: MIT */
/* ns_copy.h: a rewritten copy (sled_rewrite.h) bound over a path inside the
 * launched command's mount namespace while the command runs, so that every
 * later exec, dlopen or loader mapping of that path in the tree maps the
 * copy.  sledtrace is not in that namespace and may have threads, so the
 * mount work is done by short-lived helpers (helper.h): one writes
 * the copy into a tmpfs of a private namespace of its own and hands back a
 * detached mount of the file (open_tree), on which the probes are attached
 * before anyone can map it; another enters the command's namespace and
 * moves that mount over the path.  The tmpfs lives as long as the bind: it goes away with
 * the namespace, also when sledtrace is killed. */
#ifndef SLEDTRACE_NS_COPY_H
#define SLEDTRACE_NS_COPY_H

#include <stdint.h>
#include <sys/types.h>

struct ns_copy;

/* Makes the detached copy of the file open as memfd (owner and mode kept).
 * Returns 0 or a negative errno. */
int ns_copy__new(int memfd, struct ns_copy **out);
void ns_copy__free(struct ns_copy *c);
/* A path naming the copy's inode in this process, for attaching. */
const char *ns_copy__path(const struct ns_copy *c);
/* The copy's device and inode, as fstat gives them. */
int ns_copy__stat(const struct ns_copy *c, uint64_t *dev, uint64_t *ino);
/* Binds the copy over path in the mount namespace nsfd, if path there is
 * still the file (dev, ino as stat gives them); -ESTALE if not.  Returns 0
 * or a negative errno. */
int ns_copy__bind(struct ns_copy *c, int nsfd, const char *path, uint64_t dev, uint64_t ino);

#endif
