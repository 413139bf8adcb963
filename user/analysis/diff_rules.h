/* SPDX-License-Identifier: MIT */
/* diff_rules.h: `--fail-on` rules of `sledtrace diff`:
 *   METRIC OP THRESHOLD[%][:REGEX]
 * METRIC is calls, total, self or avg; OP is >, >=, < or <=; THRESHOLD is
 * compared with the change head - base: relative to base with %, else
 * absolute (calls: a count; times: a duration with its unit).  REGEX
 * (POSIX extended) limits the rule to matching function names.  A rule
 * fires only on a change that diff_row__significant accepts. */
#ifndef SLEDTRACE_DIFF_RULES_H
#define SLEDTRACE_DIFF_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/diff.h"

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
enum diff_metric diff_rule__metric(const struct diff_rule *r);
bool diff_rule__fires(const struct diff_rule *r, const struct diff_row *row, uint64_t min_time_ns);

#endif
