/* SPDX-License-Identifier: MIT */
/* perfetto_interp.h: what Perfetto packets mean, per trace_processor's
 * rules (docs/FORMATS.md): sequences, interning, clocks, tracks, slices.  The
 * reader (perfetto_reader.c) does the bytes; this turns each unpacked
 * packet into frame_builder calls. */
#ifndef SLEDTRACE_PERFETTO_INTERP_H
#define SLEDTRACE_PERFETTO_INTERP_H

#include <stdbool.h>

#include "model/frames.h"
#include "perfetto_trace.pb-c.h"

struct perfetto_interp;

struct perfetto_interp *perfetto_interp__new(const struct frame_sink *sink);
/* Packets in file order; returns 0, -ENOMEM or the sink's error. */
int perfetto_interp__packet(struct perfetto_interp *ip, const Perfetto__Protos__TracePacket *p);
/* False for a sledtrace trace whose stats never came: it was cut short. */
bool perfetto_interp__complete(const struct perfetto_interp *ip);
/* Closes open slices, hands over elided records' stats, finishes the sink. */
int perfetto_interp__finish(struct perfetto_interp *ip);
void perfetto_interp__free(struct perfetto_interp *ip);

#endif
