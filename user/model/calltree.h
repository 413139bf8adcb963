/* SPDX-License-Identifier: MIT */
/* calltree.h: a frame_sink that merges every call of a trace into a tree
 * of call paths (root -> ... -> function), with calls, inclusive and self
 * time per path.  Memory grows with distinct paths, not with the trace.
 * Converters that need whole stacks (folded stacks, pprof) read it. */
#ifndef SLEDTRACE_CALLTREE_H
#define SLEDTRACE_CALLTREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/frames.h"
#include "model/stitch.h"

struct calltree_node {
	uint32_t parent; /* node index; 0 is the root, which is no function */
	uint32_t fid;	 /* a function, CALLTREE_ELIDED or a thread root */
	/* Times summed over the path's calls, each raw or compensated
	 * (calltree__compensate). */
	uint64_t calls, total_ns, self_ns;
};

/* Calls a writer elided (deeper than its cap) hang under a node of this
 * fid: they were counted, but their callers are unknown. */
#define CALLTREE_ELIDED UINT32_MAX
/* With per-thread roots, fid = CALLTREE_THREAD_ROOT | thread index marks
 * the node every path of that thread starts under. */
#define CALLTREE_THREAD_ROOT 0x80000000u

struct calltree;

int calltree__new(struct calltree **out);
/* Paths of each thread start under their own thread root node instead of
 * being merged across threads (pprof's per-thread samples). */
int calltree__new_by_thread(struct calltree **out);
struct frame_sink calltree__sink(struct calltree *ct);
void calltree__free(struct calltree *ct);
/* Before the trace is read (and before calltree__sink): every call's total
 * and self time is taken less the probe cost calibrated from the run x its
 * probe hits, clamped at 0 per call (model/probe_comp.h), as the report
 * does, so a function's paths sum to the report's figures.  The sink then
 * asks the reader for the cost first (frame_sink_ops.probe_cost). */
void calltree__compensate(struct calltree *ct);
/* Whether calltree__compensate was asked: which times the writers say they
 * show. */
bool calltree__compensated(const struct calltree *ct);

/* Before the trace is read again (and before calltree__sink): a frame
 * with a cause is placed under its cause's stitched path (model/stitch.h,
 * read from the same trace first) instead of under its caller; its
 * caller's self time still leaves it out.  s must outlive the tree's
 * reading. */
void calltree__stitch(struct calltree *ct, const struct stitch *s);

size_t calltree__count(const struct calltree *ct); /* nodes, root included */
const struct calltree_node *calltree__node(const struct calltree *ct, size_t i);
const char *calltree__name(const struct calltree *ct, uint32_t fid);
/* The function as the trace announced it (name, file, line); NULL for a
 * fid that is no function. */
const struct trace_function *calltree__function(const struct calltree *ct, uint32_t fid);
/* Largest function id announced. */
uint32_t calltree__max_fid(const struct calltree *ct);
const struct trace_thread *calltree__thread(const struct calltree *ct, size_t idx);
const struct trace_stats *calltree__stats(const struct calltree *ct);
/* Earliest frame start and latest frame end seen; both 0 for no frames. */
void calltree__span(const struct calltree *ct, uint64_t *first_ns, uint64_t *last_ns);
/* record --costs: node i's self counts (enum cost_kind: allocations,
 * bytes, frees, syscalls, faults, voluntary switches) summed over the
 * path's calls, as report sums them; NULL while no frame of the trace had
 * costs.  Kept beside the nodes, and only from the first frame with
 * costs on, so a trace without them costs no memory. */
const uint64_t *calltree__costs(const struct calltree *ct, size_t i);
/* Whether the trace was recorded with --costs (its stats say so) or a
 * frame carried costs anyway: writers then show the counts, 0s included. */
bool calltree__has_costs(const struct calltree *ct);

#endif
