/* SPDX-License-Identifier: MIT */
/* report_bmf.h: `sledtrace report --format=bmf`, the rows as Bencher
 * Metric Format benchmarks (format/bmf.h; docs/exports.md, "bmf"). */
#ifndef SLEDTRACE_REPORT_BMF_H
#define SLEDTRACE_REPORT_BMF_H

#include <stddef.h>
#include <stdio.h>

struct report;
struct row;

/* Writes rows[0..n) (those the other formats would print): 0, or a
 * negative errno. */
int report_bmf__print(const struct report *r, const struct row *const *rows, size_t n, FILE *f);

#endif
