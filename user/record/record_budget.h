/* SPDX-License-Identifier: MIT */
/* record_budget.h: the plan of `record --budget=PCT`, made before the
 * recording: from --budget-from's trace, or from a counting pass of the
 * same recording (docs/DESIGN.md, "Budget"). */
#ifndef SLEDTRACE_RECORD_BUDGET_H
#define SLEDTRACE_RECORD_BUDGET_H

#include "record/record_opts.h"
#include "select/budget.h"

/* The counting pass of -p, and its untraced window before: a second each. */
#define BUDGET_WINDOW_NS 1000000000ull

/* *out gets the functions to leave unprobed, *untraced_ns the command's
 * own CPU time measured untraced (0: not measured).  Returns 0; -E2BIG
 * when the budget leaves every function unprobed; another negative errno,
 * its one line printed. */
int record_budget__plan(const struct record_opts *o, struct budget **out, uint64_t *untraced_ns);

#endif
