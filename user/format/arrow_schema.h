/* SPDX-License-Identifier: MIT */
/* arrow_schema.h: the Arrow schema of a flat Parquet schema, as the
 * base64 IPC message Arrow-based readers (polars, pyarrow) look for under
 * the Parquet key "ARROW:schema".  It carries what Parquet cannot say,
 * here Duration(ns). */
#ifndef SLEDTRACE_ARROW_SCHEMA_H
#define SLEDTRACE_ARROW_SCHEMA_H

#include <stdint.h>

#include "format/parquet_schema.h"

/* *out: a malloc'd NUL-terminated base64 string.  0 or -ENOMEM. */
int arrow_schema__base64(const struct parquet_column *cols, uint32_t ncols, char **out);

#endif
