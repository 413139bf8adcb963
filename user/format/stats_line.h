/* SPDX-License-Identifier: MIT */
/* stats_line.h: a trace's statistics (drops, inferred and unfinished
 * frames) as one "name=value ..." line, the same words in every output
 * that carries them (report formats, pprof comments, DOT, SVG). */
#ifndef SLEDTRACE_STATS_LINE_H
#define SLEDTRACE_STATS_LINE_H

#include <stdbool.h>
#include <stddef.h>

#include "model/frames.h"

/* Room for the whole line: every field at 20 digits with its name, and
 * room for the fields to come (a static assert in stats_line.c holds it). */
#define STATS_LINE_MAX 2048
/* "events=N ringbuf_drops=N ..." (every field, in a fixed order). */
void stats_line__format(const struct trace_stats *st, char *buf, size_t len);
/* Events lost before they became frames: ring buffer drops and exits with
 * no open frame.  Converters warn about these. */
uint64_t stats_line__lost(const struct trace_stats *st);

#endif
