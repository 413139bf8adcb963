/* SPDX-License-Identifier: MIT */
/* pola.h: a frame_sink writing sftrace's Parquet layout ("pola"), which
 * polars snippets written for sftrace read unchanged: an events file
 * (frame_id, parent, tid, func_id, time, kind, then columns of our own:
 * probe_ns, the cause, record --costs's counts; one row per entry and per
 * exit) and a symbol table (func_id, name, path); and what record
 * --capture took, a values file (frame_id, name, kind, raw, text).
 * docs/exports.md has the schema and the snippets. */
#ifndef SLEDTRACE_POLA_H
#define SLEDTRACE_POLA_H

#include <stdio.h>

#include "model/frames.h"

struct pola;

/* events, symtab and values: the output files.  Rows are ZSTD-compressed. */
int pola__new(FILE *events, FILE *symtab, FILE *values, struct pola **out);
struct frame_sink pola__sink(struct pola *p);
/* 0, or the first write error (also returned by the sink's calls). */
int pola__error(const struct pola *p);
const struct trace_stats *pola__stats(const struct pola *p);
void pola__free(struct pola *p);

#endif
