/* SPDX-License-Identifier: MIT */
/* perfetto_cost.h: a trace's probe cost, for a sink that needs it before
 * the calls (frame_sink_ops.probe_cost: compensation per call).  The cost
 * is in the stats, which a trace ends with, so the trace is read twice:
 * first only its last packet (the stats the writer flushes last), then
 * the whole.  A trace whose stats lack the cost (an older sledtrace's) or
 * whose last packet holds none (cut short) is read whole the first time,
 * the way its calls calibrate the cost (model/frames.c), or to fail as a
 * plain read fails.  Standard input is copied to an unnamed temporary
 * file first, so that it can be read twice. */
#ifndef SLEDTRACE_PERFETTO_COST_H
#define SLEDTRACE_PERFETTO_COST_H

#include <stddef.h>

#include "model/frames.h"

/* As perfetto_reader__read_fd (fd is closed), with sink->ops->probe_cost
 * called before anything else. */
int perfetto_cost__read(int fd, const char *name, const struct frame_sink *sink, char *err,
			size_t errlen);

#endif
