/* SPDX-License-Identifier: MIT */
/* probe_comp.h: the arithmetic of overhead-compensated times, for the
 * report (per function) and the call tree (per call path) alike.  Every
 * traced call costs a probe hit at its entry and one at its exit, and that
 * cost lands inside the frames that enclose it.  Each hit has a part
 * between the two timestamps of its call (after the entry's clock read,
 * before the exit's) and a part outside them (the trap before the entry's
 * read, the return to user space after the exit's).  Two figures describe
 * them (docs/DESIGN.md, "Probe cost"):
 *   I  the inside part of one call: the run's shortest leaf
 *      (trace_stats.probe_cost_ns);
 *   C  the full cost of one entry hit and one exit hit, inside and
 *      outside parts (trace_stats.probe_entry_ns + probe_exit_ns, measured
 *      by record on the machine); 2I when the trace has no such measure.
 * A frame with k direct traced children and n traced calls in its subtree
 * (itself included) holds
 *   in self:  I + k (C - I)   (its own inside part; per child the part
 *                              outside the child's timestamps)
 *   in total: I + (n - 1) C   (its own inside part; every call under it
 *                              whole)
 * Compensated time = raw less that, clamped at 0.  With C = 2I these are
 * the hit counts 1 + k and 2n - 1 times I that sledtrace used before C was
 * measured. */
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
	uint64_t calls;	   /* traced calls finished inside it, their own included */
	uint64_t children; /* direct children finished */
};

/* What a finished frame holds of probes: n calls in its subtree (itself
 * included), k direct children. */
struct comp_frame {
	uint64_t n, k;
};

/* A frame ends: *own is what it collected (reset for the next frame at
 * that depth by the caller), parent the frame below or NULL. */
static inline struct comp_frame comp__leave(const struct comp_depth *own, struct comp_depth *parent)
{
	struct comp_frame f = { 1 + own->calls, own->children };

	if (parent) {
		parent->calls += f.n;
		parent->children++;
	}
	return f;
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

/* The inside cost to take out of a trace whose shortest leaf took
 * leaf_min_ns (trace_stats.probe_cost_ns): 0 when that leaf did real work. */
static inline uint64_t comp__cost(uint64_t leaf_min_ns)
{
	return leaf_min_ns <= COMP_MAX_PROBE_COST_NS ? leaf_min_ns : 0;
}

/* What a compensating sink takes out (frame_sink_ops.probe_cost). */
struct comp_cost {
	uint64_t inside_ns; /* I: 0, nothing is taken out */
	uint64_t call_ns;   /* C: an entry and an exit hit, whole; >= I */
};

/* The costs of a trace: I from its shortest leaf (nothing at all when
 * that leaf did real work), C from record's measure of an entry and an
 * exit hit (entry_ns, exit_ns; 0 unmeasured), else 2I.  A measure below
 * I (the machine was slower while it ran) counts as I: no hit costs
 * less than its inside part. */
static inline struct comp_cost comp__costs(uint64_t leaf_min_ns, uint64_t entry_ns,
					   uint64_t exit_ns)
{
	struct comp_cost c = { comp__cost(leaf_min_ns), 0 };

	if (!c.inside_ns)
		return c;
	c.call_ns = entry_ns && exit_ns ? entry_ns + exit_ns : 2 * c.inside_ns;
	if (c.call_ns < c.inside_ns)
		c.call_ns = c.inside_ns;
	return c;
}

static inline bool comp__same(const struct comp_cost *a, const struct comp_cost *b)
{
	return a->inside_ns == b->inside_ns && a->call_ns == b->call_ns;
}

/* a + m x b, saturating. */
static inline uint64_t comp__mul_add(uint64_t a, uint64_t m, uint64_t b)
{
	if (b && m > (UINT64_MAX - a) / b)
		return UINT64_MAX;
	return a + m * b;
}

/* The probe cost inside a frame's total: I + (n - 1) C. */
static inline uint64_t comp__in_total(const struct comp_cost *c, struct comp_frame f)
{
	return c->inside_ns ? comp__mul_add(c->inside_ns, f.n - 1, c->call_ns) : 0;
}

/* The probe cost inside a frame's self time: I + k (C - I). */
static inline uint64_t comp__in_self(const struct comp_cost *c, struct comp_frame f)
{
	return c->inside_ns ? comp__mul_add(c->inside_ns, f.k, c->call_ns - c->inside_ns) : 0;
}

/* raw less probe, clamped at 0. */
static inline uint64_t comp__sub(uint64_t raw, uint64_t probe)
{
	return raw > probe ? raw - probe : 0;
}

/* raw less cost per hit, clamped at 0 (one cost for every hit). */
static inline uint64_t comp__apply(uint64_t raw, uint64_t hits, uint64_t cost_ns)
{
	if (cost_ns && hits > UINT64_MAX / cost_ns)
		return 0;
	return raw > hits * cost_ns ? raw - hits * cost_ns : 0;
}

#endif
