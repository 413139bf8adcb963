/* SPDX-License-Identifier: MIT */
/* estimate_change.h: the statistics of judge_verdict.h, before any rule: the
 * shift all functions share, run by run, and each function's
 * shift-corrected change of every time metric, tested against no change
 * with Welch's t and corrected for the number of functions tested with
 * Benjamini-Hochberg. */
#ifndef SLEDTRACE_DIFF_ESTIMATE_CHANGE_H
#define SLEDTRACE_DIFF_ESTIMATE_CHANGE_H

#include <stdbool.h>
#include <stddef.h>

#include "diff/judge.h"
#include "diff/row.h"

/* runs_needed looks no further than this. */
#define DIFF_MAX_RUNS_NEEDED 99

/* Fills every row's est[] for the time metrics, and sum's run total (the
 * base runs' median of their summed self time, which the noise floor is a
 * share of), shift, tested and significant.  Returns 0 or -ENOMEM. */
int diff_estimate__rows(const struct diff_judge *j, struct diff_summary *sum);
/* Runs per side that would make the change of e significant (one-sided,
 * the next to pass Benjamini-Hochberg at q among ntested functions of
 * which nsig already do), if the change and the noise stay what they
 * are; 0 when more than DIFF_MAX_RUNS_NEEDED. */
unsigned diff_estimate__runs_needed(const struct diff_estimate *e, size_t nruns, double q,
				    size_t nsig, size_t ntested);
/* Runs per side that would make a change of e's function to ratio
 * significant alone among ntested at q, with e's noise; 0 when more than
 * DIFF_MAX_RUNS_NEEDED. */
unsigned diff_estimate__runs_to_see(const struct diff_estimate *e, double ratio, size_t nruns,
				    double q, size_t ntested);

#endif
