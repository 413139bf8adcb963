/* SPDX-License-Identifier: MIT */
/* print.h: the output formats of `sledtrace diff`, one file each
 * (print_table.c, print_markdown.c, print_json.c, print_csv.c; print_bmf.c:
 * the head side for Bencher, bench --bmf), and the options they share.
 * print_format.c picks one. */
#ifndef SLEDTRACE_DIFF_PRINT_H
#define SLEDTRACE_DIFF_PRINT_H

#include <stddef.h>
#include <stdio.h>

#include "diff/diff.h"

enum diff_format {
	DIFF_FORMAT_TABLE,
	DIFF_FORMAT_MARKDOWN,
	DIFF_FORMAT_JSON,
	DIFF_FORMAT_CSV,
	DIFF_FORMAT_BMF,
};

struct diff_print_opts {
	enum diff_format format;
	size_t top;	/* at most this many functions; 0: all */
	unsigned width; /* table: columns of the terminal; 0: no limit */
};

/* Each returns 0, or a negative errno. */
int diff__print_table(const struct diff *d, const struct diff_print_opts *o, FILE *f);
int diff__print_markdown(const struct diff *d, const struct diff_print_opts *o, FILE *f);
int diff__print_json(const struct diff *d, const struct diff_print_opts *o, FILE *f);
int diff__print_csv(const struct diff *d, const struct diff_print_opts *o, FILE *f);
int diff__print_bmf(const struct diff *d, const struct diff_print_opts *o, FILE *f);

#endif
