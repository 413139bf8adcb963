/* SPDX-License-Identifier: MIT */
/* budget_plan.h: which functions `record --budget=PCT` probes, decided
 * from measured call counts (a trace of the same program: an earlier one
 * given with --budget-from, or record's own counting pass).
 *
 * Every probed call costs its entry and exit probe hits, C ns on this
 * machine (the trace's own measure of it).  A budget b of the program's
 * own time T allows calls x C <= b x T: the functions are taken in order
 * of fewest calls first, so the ones left out are the hottest, and the
 * time of a function left out counts, correctly, in its caller's self
 * time.  T is measured untraced where it can be: with dense probes the
 * profile's own time is nearly all probes, and what is left after taking
 * out an estimate of them is noise.  C is then what the profile's run
 * cost beyond T per call: the probes' average cost in this program on
 * this machine, which is up to twice the best case that the shortest
 * calls show (docs/DESIGN.md, "Budget"). */
#ifndef SLEDTRACE_BUDGET_PLAN_H
#define SLEDTRACE_BUDGET_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "select/budget.h"

#define BUDGET_PLAN_HOTTEST 3

struct budget_summary {
	double share;		 /* asked: 0.05 is 5% */
	uint64_t program_ns;	 /* the program's own time, probes taken out */
	uint64_t call_cost_ns;	 /* one call's probe hits, entry and exit */
	uint64_t calls;		 /* in the profile, every function */
	uint64_t functions;	 /* functions the profile saw called */
	uint64_t left_calls;	 /* of the functions left out */
	uint64_t left_functions; /* left out */
	uint64_t min_calls;	 /* of the least called function */
	uint64_t traced_ns;	 /* the profile's program time, probes included */
	int measured;		 /* program_ns was measured untraced */
	/* the most called functions left out, most first ("" past the last) */
	char hottest[BUDGET_PLAN_HOTTEST][128];
	uint64_t hottest_calls[BUDGET_PLAN_HOTTEST];
};

/* Reads the traces at paths[0..n) and fills *out (a new set, sealed) and
 * *sum.  A function's calls are its most in any of them; the program's
 * time and the cost of a call are paths[0]'s.  untraced_ns: the program's
 * own CPU time over paths[0]'s run, measured untraced (0: unknown, then
 * estimated).  Returns 0, or a negative errno with one line in err. */
int budget_plan__make(const char *const *paths, size_t n, double share, uint64_t untraced_ns,
		      struct budget **out, struct budget_summary *sum, char *err, size_t errlen);
/* The plan's one line, as record prints it (no newline). */
void budget_plan__describe(const struct budget_summary *sum, char *buf, size_t len);

#endif
