/* SPDX-License-Identifier: MIT */
/* judge_verdict.h: the rules' verdicts on every function and call path,
 * and the verdict of the comparison, from the statistics of
 * estimate_change.h (docs/diff.md, "How time rules decide").
 *
 * A time rule is one family of tests: the functions it could fire on (its
 * regex, tested: present in every run and at least half the noise floor),
 * their one-sided p-values in the rule's direction corrected together
 * with Benjamini-Hochberg at 1 - confidence.  It fires on a function that
 * passes, whose shift-corrected change passes the rule's threshold, the
 * noise floor and --min-time.  It is inconclusive on one whose change
 * passes all of that but the test only at a looser false discovery rate
 * (DIFF_HINT_FACTOR x), or could not be tested (one run on a side, a run
 * without the function).  Count rules fire on any change past the
 * threshold whose runs agree within each side (or whose ranges do not
 * overlap), and are inconclusive otherwise.
 *
 * The verdict: inconclusive when a run lost events (its counts cannot be
 * trusted), else fail when a rule fired, else inconclusive when a rule
 * was, or when a time rule met a side with fewer than two runs, else
 * pass. */
#ifndef SLEDTRACE_DIFF_JUDGE_VERDICT_H
#define SLEDTRACE_DIFF_JUDGE_VERDICT_H

#include <stddef.h>

#include "diff/estimate_change.h"
#include "diff/row.h"

/* Fills every row's estimates, status (changed), fired and unsure bits,
 * and the summary.  Returns 0 or -ENOMEM. */
int diff_verdict__judge(const struct diff_judge *j, struct diff_summary *out);
void diff_verdict__free(struct diff_summary *s);

#endif
