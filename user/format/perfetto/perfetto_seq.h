/* SPDX-License-Identifier: MIT */
/* perfetto_seq.h: the Perfetto writer's packet sequences and its output.
 * One sequence per traced thread, plus the sledtrace one (sequence 1);
 * each gathers its packets (encoded by perfetto_packets.c) and writes them
 * out as compressed chunks into the byte sink.  perfetto_writer.c decides
 * what happens and calls down here; nothing here calls the writer back.
 * Not for use outside the writer. */
#ifndef SLEDTRACE_PERFETTO_SEQ_H
#define SLEDTRACE_PERFETTO_SEQ_H

#include <libdeflate.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/codec/pbuf.h"
#include "format/perfetto/perfetto_packets.h"
#include "model/frames.h"
#include "util/byte_sink.h"
#include "util/u64map.h"

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

/* Every sequence and where their chunks go.  The writer fills in out and
 * the three sizes, then calls pw_seqs_open. */
struct pw_seqs {
	struct byte_sink out;
	int err; /* first error, sticky: the writer's too */
	uint64_t bytes;
	size_t chunk_bytes;   /* uncompressed bytes per chunk */
	size_t max_buffered;  /* all sequences together */
	bool plain;	      /* no compression */
	struct pw_seq **seqs; /* by thread index; NULL before its first use or after its end */
	size_t nseqs;	      /* length of seqs */
	uint32_t seq_ids;     /* sequences started so far */
	struct u64map procs;  /* process index + 1 -> 1 once described */
	size_t buffered;      /* sum of pending lengths */
	struct pw_seq meta;   /* the sledtrace sequence */
	struct libdeflate_compressor *zc;
	uint8_t *zbuf;
	size_t zcap;
};

/* Each returns 0 or the sticky error (q->err). */
/* Starts the compressor and writes the sledtrace sequence's first packet
 * through at once. */
int pw_seqs_open(struct pw_seqs *q);
/* Frees every sequence and buffer; q->out stays the caller's. */
void pw_seqs_close(struct pw_seqs *q);
/* th's sequence, NULL (q->err set) when out of memory. */
struct pw_seq *pw_seq_get(struct pw_seqs *q, const struct trace_thread *th);
/* th's sequence, started and described (with its process) at ts; NULL
 * on an error.  Inline: every event asks. */
struct pw_seq *pw_seq_start(struct pw_seqs *q, const struct trace_thread *th, uint64_t ts);
static inline struct pw_seq *pw_seq_ready(struct pw_seqs *q, const struct trace_thread *th,
					  uint64_t ts)
{
	struct pw_seq *s = th->index < q->nseqs ? q->seqs[th->index] : NULL;

	return s && s->started ? s : pw_seq_start(q, th, ts);
}
/* The thread is over: its state slice ends, its last chunk goes out and
 * the sequence is freed. */
int pw_seq_end_thread(struct pw_seqs *q, uint32_t thread_index);
/* Whether fid's name and location went out on s already. */
static inline bool pw_seq_knows(const struct pw_seq *s, uint32_t fid)
{
	return fid / 8 < s->interned_bytes && (s->interned[fid / 8] >> (fid % 8)) & 1;
}
/* A slice of fr begins on s at its begin_ns.  f is its function, file and line final;
 * objs: the objects f->obj indexes. */
int pw_seq_begin(struct pw_seqs *q, struct pw_seq *s, uint32_t depth, const struct frame *fr,
		 const struct pkt_func *f, const struct pkt_object *objs);
/* A cause at ts on s's thread (pkt_cause). */
int pw_seq_cause(struct pw_seqs *q, struct pw_seq *s, const struct cause_point *cp, uint64_t cause);
/* values: the frame's captured values (record --capture), costs what it
 * spent (record --costs); either may be NULL.  The slice at depth ends:
 * its END says how many traced calls it held. */
int pw_seq_end(struct pw_seqs *q, struct pw_seq *s, uint32_t depth, uint64_t ts, bool inferred,
	       const struct frame_values *values, const struct frame_costs *costs);
/* The thread is in state from ts on: its open state slice ends and one of
 * state begins (the first time, the state track is described and its
 * first slice, running, begins at the thread's first event). */
int pw_seq_state(struct pw_seqs *q, struct pw_seq *s, uint64_t ts, enum thread_state state);
/* Every thread's open state slice ends and its packets go out; then the
 * sledtrace sequence's pending packets are all that is left. */
int pw_seqs_flush_threads(struct pw_seqs *q);
/* Packets from `before` on were appended to s->pending. */
int pw_seq_appended(struct pw_seqs *q, struct pw_seq *s, size_t before);
/* Writes out s's pending packets (release: and frees its buffer). */
int pw_seq_flush(struct pw_seqs *q, struct pw_seq *s, bool release);

#endif
