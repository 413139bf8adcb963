/* SPDX-License-Identifier: MIT */
/* report.h: a frame_sink that aggregates a trace per function (or per
 * thread and function) and prints the table `sledtrace report` shows. */
#ifndef SLEDTRACE_REPORT_H
#define SLEDTRACE_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "model/frames.h"

enum report_sort { REPORT_SORT_CALLS, REPORT_SORT_TOTAL, REPORT_SORT_SELF, REPORT_SORT_NAME };
enum report_format { REPORT_TABLE, REPORT_TSV };

struct report_opts {
	bool by_thread;
	enum report_sort sort; /* numbers descending, then name, then tid */
	enum report_format format;
};

struct report;

int report__new(const struct report_opts *opts, struct report **out);
struct frame_sink report__sink(struct report *r);
/* After the sink's finish(); returns 0 or a negative errno. */
int report__print(struct report *r, FILE *f);
void report__free(struct report *r);

#endif
