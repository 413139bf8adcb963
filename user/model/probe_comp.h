/* SPDX-License-Identifier: MIT */
/* probe_comp.h: the arithmetic of overhead-compensated times, for the
 * report (per function) and the call tree (per call path) alike.  Every
 * traced call costs a probe hit at its entry and one at its exit, and that
 * cost lands inside the frames that enclose it.  Counting the hits inside
 * each frame lets a consumer take cost x hits out of it once the cost is
 * known (trace_stats.probe_cost_ns, calibrated from the run):
 *   hits in total = 1 (its own exit) + for each direct child
 *                   (1 entry + the child's hits in total)
 *   hits in self  = hits in total - children's hits in total
 *                 = 1 + direct children (their entries)
 * Compensated time = raw - cost x hits, clamped at 0. */
#ifndef SLEDTRACE_PROBE_COMP_H
#define SLEDTRACE_PROBE_COMP_H

#include <stdbool.h>
#include <stdint.h>

/* How --times names the two kinds, and how every output says which it shows. */
#define COMP_TIMES_RAW "raw"
#define COMP_TIMES_COMPENSATED "compensated"

static inline const char *comp__times_name(bool compensated)
{
	return compensated ? COMP_TIMES_COMPENSATED : COMP_TIMES_RAW;
}

/* What an open frame has collected from its finished children. */
struct comp_depth {
	uint64_t hits;	   /* probe hits inside the finished children, with theirs */
	uint64_t children; /* direct children finished */
};

/* A frame ends: *own is what it collected (reset for the next frame at
 * that depth by comp__enter), parent the frame below or NULL.  Returns its
 * hits in total; *self_hits gets its hits in self. */
static inline uint64_t comp__leave(const struct comp_depth *own, struct comp_depth *parent,
				   uint64_t *self_hits)
{
	uint64_t hits = 1 + own->hits;

	*self_hits = 1 + own->children;
	if (parent) {
		parent->hits += 1 + hits;
		parent->children++;
	}
	return hits;
}

/* The shortest leaf call measures the probes only if the run has a call
 * that does next to nothing.  A run without one (every traced function
 * does real work, or a filter kept only the heavy ones) has its shortest
 * leaf far above what any probe kind costs - a rewritten sled ~0.3 us, a
 * breakpoint or return probe ~1-3 us, a single-stepped instruction ~20 us
 * on the VM measured (docs/DESIGN.md, "Probe cost") - and taking that out
 * of every call would wipe out the small functions and most of the
 * callers' self time.  Such a run is not compensated: its cost is 0. */
#define COMP_MAX_PROBE_COST_NS 20000

/* The cost per hit to take out of a trace whose shortest leaf took
 * leaf_min_ns (trace_stats.probe_cost_ns). */
static inline uint64_t comp__cost(uint64_t leaf_min_ns)
{
	return leaf_min_ns <= COMP_MAX_PROBE_COST_NS ? leaf_min_ns : 0;
}

/* raw less cost per hit, clamped at 0. */
static inline uint64_t comp__apply(uint64_t raw, uint64_t hits, uint64_t cost_ns)
{
	if (cost_ns && hits > UINT64_MAX / cost_ns)
		return 0;
	return raw > hits * cost_ns ? raw - hits * cost_ns : 0;
}

#endif
