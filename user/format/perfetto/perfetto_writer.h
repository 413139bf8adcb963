/* SPDX-License-Identifier: MIT */
/* perfetto_writer.h: a frame_sink that streams a Perfetto trace into a
 * byte sink (a file, or a gzip stream onto one).  One packet sequence per
 * traced thread, packets batched per
 * sequence into zlib-compressed chunks, frames deeper than a cap counted
 * ("elided") instead of written, the threads' states on tracks of their
 * own, the drop statistics written last.
 * The constants below are the contract with perfetto_reader.c. */
#ifndef SLEDTRACE_PERFETTO_WRITER_H
#define SLEDTRACE_PERFETTO_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/frames.h"
#include "util/byte_sink.h"

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

/* The stats are written under the model's field names (model/trace_stats.h).
 * Old spelling, kept for code written against it: */
#define perfetto_stat_fields trace_stat_fields
#define perfetto_stat_nfields trace_stat_nfields

struct perfetto_writer_opts {
	size_t chunk_bytes;  /* uncompressed bytes per chunk; 0: 64 KiB */
	size_t max_buffered; /* all sequences together; 0: 4 MiB */
	uint32_t max_depth;  /* 0: PERFETTO_MAX_DEPTH */
	bool plain;	     /* no compression (debugging, tests) */
};

struct perfetto_writer;

/* Writes the trace header into out at once.  opts may be NULL.  out stays
 * the caller's: the writer never closes or finishes it. */
int perfetto_writer__new(struct byte_sink out, const struct perfetto_writer_opts *opts,
			 struct perfetto_writer **w);
/* The sink's finish() flushes everything and returns the first write
 * error (-ENOSPC, -EIO...); after an error every call returns it. */
struct frame_sink perfetto_writer__sink(struct perfetto_writer *w);
/* Bytes given to the sink so far. */
uint64_t perfetto_writer__bytes(const struct perfetto_writer *w);
void perfetto_writer__free(struct perfetto_writer *w);

#endif
