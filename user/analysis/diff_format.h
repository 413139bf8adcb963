/* SPDX-License-Identifier: MIT */
/* diff_format.h: prints a finished diff as a terminal table, a GitHub
 * job summary (markdown), JSON (schema in docs/diff.md) or CSV. */
#ifndef SLEDTRACE_DIFF_FORMAT_H
#define SLEDTRACE_DIFF_FORMAT_H

#include <stddef.h>
#include <stdio.h>

#include "analysis/diff.h"

enum diff_format { DIFF_FORMAT_TABLE, DIFF_FORMAT_MARKDOWN, DIFF_FORMAT_JSON, DIFF_FORMAT_CSV };

struct diff_print_opts {
	enum diff_format format;
	size_t top;	/* at most this many functions; 0: all */
	unsigned width; /* table: columns of the terminal; 0: no limit */
};

/* Returns 0 or -EIO. */
int diff__print(const struct diff *d, const struct diff_print_opts *o, FILE *f);
/* One line per rule and function it fired on, each line starting with
 * prefix: "RULE fired on FUNCTION: METRIC BASE -> HEAD (CHANGE)". */
void diff__print_fired(const struct diff *d, const char *prefix, FILE *f);

/* Shared by the formats (diff_format.c). */
const char *diff_fmt_value(char *buf, size_t n, enum diff_metric m, double v);
const char *diff_fmt_change(char *buf, size_t n, const struct diff_row *r, enum diff_metric m);
/* "name", plus " (object)" when another object has that name too, plus
 * " [thread]" per thread or process. */
const char *diff_row__label(const struct diff_row *r, char *buf, size_t n);
/* Calls fn once per note: runs whose counts disagree, lost events. */
void diff__notes(const struct diff *d, void (*fn)(void *ctx, const char *note), void *ctx);

int diff__print_json(const struct diff *d, const struct diff_print_opts *o, FILE *f);
int diff__print_csv(const struct diff *d, const struct diff_print_opts *o, FILE *f);
int diff__print_markdown(const struct diff *d, const struct diff_print_opts *o, FILE *f);

#endif
