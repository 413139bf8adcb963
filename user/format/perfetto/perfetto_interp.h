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
/* The fields of a plain track-event packet (timestamp, sequence, flags,
 * clock id; track event type, name iid, track uuid, source location iid),
 * decoded by the reader straight from the wire: most packets of a trace
 * are such slice begins and ends, and protobuf-c's generic unpacking would
 * dominate reading them. */
struct perfetto_fast_event {
	uint64_t timestamp, name_iid, track_uuid, srcloc_iid;
	uint32_t seq_id, seq_flags, clock_id;
	int32_t type;
	bool has_timestamp, has_clock_id, has_name_iid, has_track_uuid, has_srcloc_iid;
	bool exit_inferred; /* END annotated exit_inferred (full path only) */
};

/* Same meaning as perfetto_interp__packet for such a packet: returns 1
 * when it was handled, 0 when it needs the full packet path (then nothing
 * was changed), or a negative errno. */
int perfetto_interp__fast_event(struct perfetto_interp *ip, const struct perfetto_fast_event *e);
/* False for a sledtrace trace whose stats never came: it was cut short. */
bool perfetto_interp__complete(const struct perfetto_interp *ip);
/* Closes open slices, hands over elided records' stats, finishes the sink. */
int perfetto_interp__finish(struct perfetto_interp *ip);
void perfetto_interp__free(struct perfetto_interp *ip);

#endif
