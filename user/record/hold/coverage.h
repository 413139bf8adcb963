/* SPDX-License-Identifier: MIT */
/* coverage.h: where a recording cannot prove that probes were live on
 * what a traced process ran.  Every (process, mapping of an object with
 * sleds) is covered by the holds of mappings.h unless one of these says
 * otherwise: a hold that could not be taken, a fork on a kernel that
 * cannot stop the child, a held process resumed by someone else's SIGCONT
 * (the BPF side notes these in its `gaps` map), an object whose probes
 * could not be attached, a resume that could not wait for every thread to
 * stop (mappings.c).  Each such window goes into the trace (struct
 * trace_gap), its stats and a warning. */
#ifndef SLEDTRACE_COVERAGE_H
#define SLEDTRACE_COVERAGE_H

#include <stddef.h>
#include <stdint.h>

#include "model/trace_gaps.h"

/* end_ns of a window that lasts until the process or the recording ends. */
#define COVERAGE_OPEN 0

int coverage__add(struct trace_gaps *l, uint32_t pid, const char *object, uint64_t start_ns,
		  uint64_t end_ns, const char *why);
/* Reads the BPF `gaps` map; object_at(ctx, dev, ino, &live_ns) names the
 * object of a kernel file id and says since when its probes are live (0:
 * never), or returns NULL when the recording never looked at the file. */
int coverage__read_bpf(struct trace_gaps *l, int gaps_fd,
		       const char *(*object_at)(void *ctx, uint64_t dev, uint64_t ino,
						uint64_t *live_ns),
		       void *ctx);
/* One warning line per gap (at most `max`, then a count). */
void coverage__warn(const struct trace_gaps *l, size_t max);

#endif
