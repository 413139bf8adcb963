/* SPDX-License-Identifier: MIT */
/* trace_gaps.h: a list of coverage gaps (struct trace_gap, frames.h) that
 * owns its strings: filled by record (record/hold/coverage.h) or by a reader's
 * gap() calls, handed on to a frame builder, or described one per line. */
#ifndef SLEDTRACE_TRACE_GAPS_H
#define SLEDTRACE_TRACE_GAPS_H

#include <stddef.h>
#include <stdint.h>

#include "model/frames.h"

struct trace_gaps {
	struct trace_gap *g; /* object and why owned */
	size_t n, cap;
};

/* Copies g's strings. */
int trace_gaps__add(struct trace_gaps *l, const struct trace_gap *g);
/* Sorts by start time, then hands each to fb. */
int trace_gaps__emit(struct trace_gaps *l, struct frame_builder *fb);
/* "process 12 may have run /x/libf.so unprobed for 1.234 ms: why". */
void trace_gaps__describe(const struct trace_gap *g, char *buf, size_t len);
void trace_gaps__free(struct trace_gaps *l);

#endif
