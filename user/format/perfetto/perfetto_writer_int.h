/* SPDX-License-Identifier: MIT */
/* perfetto_writer_int.h: the Perfetto writer's state, shared by its two
 * files: perfetto_writer.c (the frame sink: functions, objects, elided
 * calls, the end of the trace) drives perfetto_seq.c (one packet sequence
 * per thread: what goes on it, its chunks, the output), and both have
 * perfetto_packets.c encode.  Calls go that way only.  Not for use outside
 * the writer. */
#ifndef SLEDTRACE_PERFETTO_WRITER_INT_H
#define SLEDTRACE_PERFETTO_WRITER_INT_H

#include <libdeflate.h>

#include "format/codec/pbuf.h"
#include "format/perfetto/perfetto_packets.h"
#include "format/perfetto/perfetto_writer.h"
#include "util/u64map.h"

struct pw_func {
	struct pkt_func pk;
	/* Set until file and line are asked for (trace_function.locate). */
	int (*locate)(void *ctx, uint64_t key, const char **file, uint32_t *line);
	void *locate_ctx;
	uint64_t locate_key;
};

/* One traced thread = one packet sequence. */
struct pw_seq {
	uint32_t seq_id;
	uint32_t thread_index;
	uint64_t objs_interned; /* bit per object index (< 64) sent here */
	bool started;
	bool states_open;     /* the state track is described, a slice of it open */
	uint8_t states_named; /* bit per thread_state whose name was sent here */
	uint64_t first_ts;    /* the thread's first event, where its states begin */
	uint64_t last_ts;     /* running value of the incremental clock */
	struct pbuf pending;  /* framed packets not yet written */
	uint8_t *interned;    /* bit per fid: name (and location) sent here */
	size_t interned_bytes;
	uint64_t *below; /* by depth: traced calls finished inside the open slice */
	uint32_t below_cap;
};

struct perfetto_writer {
	struct byte_sink out;
	int err; /* first error, sticky */
	struct perfetto_writer_opts o;
	uint64_t bytes;
	struct pw_func *funcs; /* by fid */
	size_t nfuncs;
	struct pw_seq **seqs; /* by thread index; NULL before its first use or after its end */
	size_t nseqs;	      /* length of seqs */
	uint32_t seq_ids;     /* sequences started so far */
	struct pkt_object *objs;
	size_t nobjs;
	struct u64map procs;	  /* process index + 1 -> 1 once described */
	struct u64map elided_idx; /* thread index << 32 | fid -> index into elided */
	struct pkt_elided *elided;
	size_t nelided;
	size_t buffered; /* sum of pending lengths */
	uint64_t max_ts, capped;
	struct trace_stats stats;
	struct pw_seq meta;
	struct libdeflate_compressor *zc;
	bool finished;
	uint8_t *zbuf;
	size_t zcap;
};

/* perfetto_seq.c.  Each returns 0 or the writer's sticky error. */
/* The sledtrace sequence's first packet, written through at once. */
int pw_seq_header(struct perfetto_writer *w);
/* th's sequence, NULL (w->err set) when out of memory. */
struct pw_seq *pw_seq_get(struct perfetto_writer *w, const struct trace_thread *th);
/* th's sequence, started and described (with its process) at ts; NULL
 * on an error.  Inline: every event asks. */
struct pw_seq *pw_seq_start(struct perfetto_writer *w, const struct trace_thread *th, uint64_t ts);
static inline struct pw_seq *pw_seq_ready(struct perfetto_writer *w, const struct trace_thread *th,
					  uint64_t ts)
{
	struct pw_seq *s = th->index < w->nseqs ? w->seqs[th->index] : NULL;

	return s && s->started ? s : pw_seq_start(w, th, ts);
}
void pw_seq_free(struct pw_seq *s);
/* Whether fid's name and location went out on s already. */
static inline bool pw_seq_knows(const struct pw_seq *s, uint32_t fid)
{
	return fid / 8 < s->interned_bytes && (s->interned[fid / 8] >> (fid % 8)) & 1;
}
/* A slice of fid begins on s at ts; fid's file and line must be final. */
int pw_seq_begin(struct perfetto_writer *w, struct pw_seq *s, uint32_t depth, uint32_t fid,
		 uint64_t ts);
/* values: the frame's captured values (record --capture), or NULL.  The
 * slice at depth ends: its END says how many traced calls it held. */
int pw_seq_end(struct perfetto_writer *w, struct pw_seq *s, uint32_t depth, uint64_t ts,
	       bool inferred, const struct frame_values *values);
/* The thread is in state from ts on: its open state slice ends and one of
 * state begins (the first time, the state track is described and its
 * first slice, running, begins at the thread's first event). */
int pw_seq_state(struct perfetto_writer *w, struct pw_seq *s, uint64_t ts, enum thread_state state);
/* The open state slice, if any, ends at the sequence's last event. */
int pw_seq_states_end(struct perfetto_writer *w, struct pw_seq *s);
/* Packets from `before` on were appended to s->pending. */
int pw_seq_appended(struct perfetto_writer *w, struct pw_seq *s, size_t before);
/* Writes out s's pending packets (release: and frees its buffer). */
int pw_seq_flush(struct perfetto_writer *w, struct pw_seq *s, bool release);

#endif
