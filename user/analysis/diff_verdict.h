/* SPDX-License-Identifier: MIT */
/* diff_verdict.h: turns the per-run numbers of `sledtrace diff` into
 * verdicts that hold under noise and drift.
 *
 * Time metrics: each run's time of every function is divided by the
 * run's shared shift, the median over the functions of how far the run
 * sits from their mean (in logarithms): a machine that is uniformly slower
 * during some runs moves every function alike and is taken out.  Each
 * function's shift-corrected logarithms are then compared, base against
 * head, with Welch's t test, which uses the spread between the runs of
 * each side; the p-values of all functions tested are corrected together
 * (Benjamini-Hochberg at 1 - confidence), so that with no real change the
 * chance of any false alarm stays below 1 - confidence.  A function is
 * tested only when it holds at least half the noise floor of the run (so
 * the family corrected for is the functions that could fire at all).
 *
 * A time rule fires on a function when its change is significant, its
 * shift-corrected estimate passes the rule's threshold, and the change is
 * at least the noise floor (a share of the run's total self time) and
 * --min-time.  It is inconclusive when the estimate passes all of that but
 * the test cannot tell: significant on its own but not among all the
 * functions, or not testable (one run on a side, a run without the
 * function).  Count rules fire on any change past the threshold whose
 * runs agree within each side (or whose ranges do not overlap), and are
 * inconclusive otherwise.
 *
 * The verdict: inconclusive when a run lost events (its counts cannot be
 * trusted), else fail when a rule fired, else inconclusive when a rule
 * was, or when a time rule met a side with fewer than two runs, else
 * pass. */
#ifndef SLEDTRACE_DIFF_VERDICT_H
#define SLEDTRACE_DIFF_VERDICT_H

#include <stddef.h>

#include "analysis/diff_estimate.h"
#include "analysis/diff_row.h"

/* Fills every row's estimates, status (changed), fired and unsure bits,
 * and the summary.  Returns 0 or -ENOMEM. */
int diff_verdict__judge(const struct diff_judge *j, struct diff_summary *out);
void diff_verdict__free(struct diff_summary *s);

#endif
