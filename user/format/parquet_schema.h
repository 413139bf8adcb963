/* SPDX-License-Identifier: MIT */
/* parquet_schema.h: a flat Parquet schema, the columns in order and the
 * kind of value each holds.  Its own header because two files read it:
 * parquet.c writes the schema into the file's footer, arrow_schema.c
 * writes the same columns as the Arrow schema beside it. */
#ifndef SLEDTRACE_PARQUET_SCHEMA_H
#define SLEDTRACE_PARQUET_SCHEMA_H

enum parquet_kind {
	PARQUET_U32,	     /* INT32, logical type INTEGER(32, unsigned) */
	PARQUET_U64,	     /* INT64, logical type INTEGER(64, unsigned) */
	PARQUET_DURATION_NS, /* INT64; Arrow Duration(ns) through ARROW:schema */
	PARQUET_STRING,	     /* BYTE_ARRAY, logical type STRING */
};

struct parquet_column {
	const char *name;
	enum parquet_kind kind;
};

#endif
