/* SPDX-License-Identifier: MIT */
/* parquet.h: a small Apache Parquet writer: flat schemas of required
 * columns, PLAIN encoding, one data page per column chunk, row groups of
 * a fixed row count, ZSTD or no compression.  Rows are appended column by
 * column and flushed a row group at a time, so memory is one row group. */
#ifndef SLEDTRACE_PARQUET_H
#define SLEDTRACE_PARQUET_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "format/parquet_schema.h"

struct parquet_opts {
	uint32_t rows_per_group; /* 0: 1 << 20 */
	bool zstd;
};

struct parquet_writer;

int parquet_writer__new(FILE *f, const struct parquet_column *cols, uint32_t ncols,
			const struct parquet_opts *o, struct parquet_writer **out);
/* One value per column, in column order, then end_row. */
void parquet_writer__int(struct parquet_writer *w, uint32_t col, uint64_t v);
void parquet_writer__str(struct parquet_writer *w, uint32_t col, const char *s);
/* Returns 0 or a negative errno (a failed flush or allocation). */
int parquet_writer__end_row(struct parquet_writer *w);
/* Flushes the last row group and writes the footer. */
int parquet_writer__finish(struct parquet_writer *w);
void parquet_writer__free(struct parquet_writer *w);

#endif
