/* SPDX-License-Identifier: MIT */
/* report_costs.h: a report's columns and fields of record --costs
 * (model/frame_costs.h), and `report --syscalls`: each function's own
 * system calls by name.  Only a trace recorded with --costs has them
 * (trace_stats.costs): without, the formats are as before. */
#ifndef SLEDTRACE_REPORT_COSTS_H
#define SLEDTRACE_REPORT_COSTS_H

#include <stdio.h>

#include "analysis/report_int.h"

/* TSV/CSV: the cost columns, after every other: each count's self figure
 * under its name, then the inclusive ones as NAME_total. */
void report_costs__flat_header(FILE *f, char sep);
void report_costs__flat_row(const struct row *row, FILE *f, char sep);
/* JSON: the same as fields of a row, and "syscalls_by_name". */
void report_costs__json(const struct row *row, FILE *f);
/* report --syscalls: one line per function and system call, most made
 * first, as a table or JSON (other formats: TSV, CSV).  -EINVAL when the
 * trace was not recorded with --costs. */
int report_costs__print_syscalls(const struct report *r, FILE *f);

#endif
