/* SPDX-License-Identifier: MIT */
/* perfetto_layout.h: what sledtrace puts where in a Perfetto trace: its
 * metadata sequence and track, its event names, how its track uuids and
 * interned ids are made.  The contract between the writer
 * (perfetto_packets.c encodes it) and the reader (perfetto_interp.c,
 * perfetto_states.c, perfetto_cost.c), in a header of its own so that
 * neither side needs the other; docs/FORMATS.md describes it. */
#ifndef SLEDTRACE_PERFETTO_LAYOUT_H
#define SLEDTRACE_PERFETTO_LAYOUT_H

#include <stdint.h>

/* trace_processor drops slices nested deeper than this. */
#define PERFETTO_MAX_DEPTH 512

/* The sledtrace metadata track (sequence 1): its descriptor opens every
 * trace we write, and its last events are the elided records and the
 * stats, so a reader knows a sledtrace file without stats is truncated. */
#define PERFETTO_META_SEQ 1
#define PERFETTO_META_UUID ((uint64_t)3 << 32)
#define PERFETTO_META_TRACK "sledtrace"
#define PERFETTO_STATS_EVENT "sledtrace.stats"
#define PERFETTO_ELIDED_EVENT "sledtrace.elided"
/* One per coverage gap (struct trace_gap), before the stats. */
#define PERFETTO_GAP_EVENT "sledtrace.coverage_gap"
/* Tracks are per process and per thread lifetime (trace_thread's
 * process_index and index), so a reused pid or tid gets a track of its own. */
#define PERFETTO_PROCESS_UUID(process_index) (((uint64_t)1 << 32) | (uint32_t)(process_index))
#define PERFETTO_THREAD_UUID(thread_index) (((uint64_t)2 << 32) | (uint32_t)(thread_index))
/* A thread's states (frames.h, enum thread_state), when a scheduler switch
 * was recorded for it: a child track of its thread track, on the thread's
 * sequence, one slice per state named as thread_state_names.  The first
 * slice is the thread running from its first event; every later one
 * begins at a switch.  The names' iids lie above every function id. */
#define PERFETTO_STATE_TRACK "state"
#define PERFETTO_STATE_UUID(thread_index) (((uint64_t)4 << 32) | (uint32_t)(thread_index))
#define PERFETTO_STATE_IID(state) (((uint64_t)1 << 32) + (uint32_t)(state))

/* Causes (model/frames.h): where a thread made another run, an INSTANT
 * on its thread track named for the kind (frame_cause_names) with one
 * flow id and the causing frame's id (PERFETTO_CAUSE_ARG: an open frame,
 * not always the innermost); the frame it caused begins with that id among its
 * terminating_flow_ids and these two debug annotations: the causing
 * frame's id (FRAME_ID, the writer's thread index as uid: thread tracks'
 * uuids carry it) and the kind's name. */
#define PERFETTO_CAUSE_ARG "cause"
#define PERFETTO_CAUSE_KIND_ARG "cause_kind"
/* On the INSTANT of a spawn or wakeup: the track uuid of the thread made to
 * run (report --critical-path follows wakeups back through it). */
#define PERFETTO_WOKEN_ARG "woken"
#define PERFETTO_THREAD_INDEX_OF(uuid) ((uint32_t)(uuid))
#define PERFETTO_IS_THREAD_UUID(uuid) ((uuid) >> 32 == 2)

/* The stats are written under the model's field names (model/trace_stats.h).
 * Old spelling, kept for code written against it: */
#define perfetto_stat_fields trace_stat_fields
#define perfetto_stat_nfields trace_stat_nfields

#endif
