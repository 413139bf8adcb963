/* SPDX-License-Identifier: MIT */
/* chrome_json.h: a frame_sink writing the Chrome trace event format
 * (chrome://tracing, speedscope, Perfetto's legacy JSON importer): one
 * B/E pair per call, ts in microseconds since the first frame (three
 * decimals keep nanoseconds), process and thread name metadata. */
#ifndef SLEDTRACE_CHROME_JSON_H
#define SLEDTRACE_CHROME_JSON_H

#include <stdio.h>

#include "model/frames.h"

struct chrome_json;

int chrome_json__new(FILE *f, struct chrome_json **out);
struct frame_sink chrome_json__sink(struct chrome_json *cj);
/* The trace's stats, after the sink finished. */
const struct trace_stats *chrome_json__stats(const struct chrome_json *cj);
void chrome_json__free(struct chrome_json *cj);

#endif
