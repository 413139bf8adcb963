/* SPDX-License-Identifier: MIT */
/* judge_rules.h: `--fail-on` rules of `sledtrace diff`:
 *   METRIC OP THRESHOLD[%][:REGEX]
 * METRIC is a metric of metric.h (calls, total, self, avg, cpu, cpu-self,
 * and the counts of record --costs: allocs, alloc-bytes, syscalls,
 * page-faults, all per function) or a count of one caller -> callee
 * path: edge-calls, its calls, and edge-allocs, edge-alloc-bytes,
 * edge-syscalls, edge-page-faults, what they spent, callees included
 * (metric.h's edge metrics); OP is >, >=, < or
 * <=; THRESHOLD is compared with the change head - base: relative to base
 * with %, else absolute (counts: a number; times: a duration with its
 * unit).  REGEX (POSIX extended) limits the rule to matching function
 * names, for a path's counts to paths whose "CALLER -> CALLEE" matches.  This
 * module only parses and compares; judge_verdict.c decides when the
 * evidence lets a rule fire. */
#ifndef SLEDTRACE_DIFF_JUDGE_RULES_H
#define SLEDTRACE_DIFF_JUDGE_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diff/metric.h"

struct diff_rule;

/* Parses a duration with its unit ("50us", "1.5ms") into ns; 0 or -EINVAL.
 * The command line's own parser, so that durations read the same in every
 * option and rule. */
typedef int (*diff_duration_parser)(const char *s, uint64_t *ns, char *err, size_t errlen);

/* Returns 0, or -EINVAL with one line (no newline) in err. */
int diff_rule__parse(const char *text, diff_duration_parser parse_duration, struct diff_rule **out,
		     char *err, size_t errlen);
void diff_rule__free(struct diff_rule *r);
const char *diff_rule__text(const struct diff_rule *r);
/* An enum diff_metric, or DIFF_NMETRICS + an enum diff_edge_metric. */
int diff_rule__metric(const struct diff_rule *r);
/* Whether the rule looks for a rise (> or >=), else a fall. */
bool diff_rule__upward(const struct diff_rule *r);
/* Whether the rule's REGEX (if any) matches name. */
bool diff_rule__matches(const struct diff_rule *r, const char *name);
/* Whether a change passes the threshold: change_pct against a % threshold
 * (+-INFINITY for a function new or gone), else the absolute change. */
bool diff_rule__passes(const struct diff_rule *r, double change, double change_pct);
/* head / base at the threshold, for a base of base (absolute thresholds);
 * NAN where no positive ratio is (a fall of 100% or more). */
double diff_rule__threshold_ratio(const struct diff_rule *r, double base);

#endif
