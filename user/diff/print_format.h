/* SPDX-License-Identifier: MIT */
/* print_format.h: prints a finished diff as a terminal table, a GitHub
 * job summary (markdown), JSON (schema in docs/diff.md) or CSV. */
#ifndef SLEDTRACE_DIFF_PRINT_FORMAT_H
#define SLEDTRACE_DIFF_PRINT_FORMAT_H

#include <stdio.h>

#include "diff/print.h"

/* Returns 0 or -EIO. */
int diff__print(const struct diff *d, const struct diff_print_opts *o, FILE *f);

#endif
