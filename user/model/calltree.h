/* SPDX-License-Identifier: MIT */
/* calltree.h: a frame_sink that merges every call of a trace into a tree
 * of call paths (root -> ... -> function), with calls, inclusive and self
 * time per path.  Memory grows with distinct paths, not with the trace.
 * Converters that need whole stacks (folded stacks, pprof) read it. */
#ifndef SLEDTRACE_CALLTREE_H
#define SLEDTRACE_CALLTREE_H

#include <stddef.h>
#include <stdint.h>

#include "model/frames.h"

struct calltree_node {
	uint32_t parent; /* node index; 0 is the root, which is no function */
	uint32_t fid;
	uint64_t calls, total_ns, self_ns;
};

struct calltree;

int calltree__new(struct calltree **out);
struct frame_sink calltree__sink(struct calltree *ct);
void calltree__free(struct calltree *ct);

size_t calltree__count(const struct calltree *ct); /* nodes, root included */
const struct calltree_node *calltree__node(const struct calltree *ct, size_t i);
const char *calltree__name(const struct calltree *ct, uint32_t fid);
const struct trace_stats *calltree__stats(const struct calltree *ct);

#endif
