/* SPDX-License-Identifier: MIT */
/* perfetto_packets.h: every packet the Perfetto writer writes, encoded
 * with the one protobuf encoder (codec/pbuf.h).  Each call appends one
 * framed packet (Trace.packet, field 1) to a buffer and decides nothing:
 * which packet goes on which sequence and when is the writer's.  Field
 * numbers are proto/perfetto_trace.proto's; the layout is docs/FORMATS.md. */
#ifndef SLEDTRACE_PERFETTO_PACKETS_H
#define SLEDTRACE_PERFETTO_PACKETS_H

#include <stdbool.h>
#include <stdint.h>

#include "format/codec/pbuf.h"
#include "model/frames.h"

#define CLOCK_BOOTTIME_ID 6
#define CLOCK_SEQ_ID 64 /* per-sequence incremental clock, 1 ns units */
#define SEQ_CLEARED 1
#define SEQ_NEEDS 2

/* A function as the packets carry it; the strings are the writer's. */
struct pkt_func {
	char *name, *file; /* name NULL: never announced; file NULL: unknown */
	char *mangled;	   /* NULL when unknown */
	uint32_t name_len, file_len, line;
	int32_t obj;   /* object index, -1 when unknown */
	uint64_t addr; /* 0 when unknown */
};

struct pkt_object {
	char *path, *build_id; /* build_id "" when none */
};

/* Calls of one function on one thread that were not written as slices. */
struct pkt_elided {
	uint32_t pid, tid, index, fid;
	uint64_t calls, total_ns;
};

/* The file's first packet: the sledtrace track on sequence 1. */
void pkt_header(struct pbuf *b);
/* A thread sequence's first packet: the clock snapshot at ts and the
 * defaults (incremental clock, the thread's track). */
void pkt_seq_start(struct pbuf *b, uint32_t seq, uint32_t thread_index, uint64_t ts);
void pkt_process(struct pbuf *b, uint32_t seq, const struct trace_thread *th);
void pkt_thread(struct pbuf *b, uint32_t seq, const struct trace_thread *th);
/* Function fid's identity as interned data; o is its object when this
 * sequence has not been given it yet, else NULL. */
void pkt_identity(struct pbuf *b, uint32_t seq, uint32_t fid, const struct pkt_func *f,
		  const struct pkt_object *o);
/* The hot packets, one per traced call and return.  delta is the time
 * since the sequence's previous event.  intern: fid's first use on the
 * sequence, its name and source location go along.  caused: the frame
 * begun when it has a cause (struct frame), else NULL: the begin then
 * carries its cause (perfetto_layout.h). */
void pkt_begin(struct pbuf *b, uint32_t seq, uint32_t fid, const struct pkt_func *f, bool intern,
	       uint64_t delta, const struct frame *caused);
/* A cause on the thread's track (an INSTANT named for its kind, starting
 * its flow, with the causing frame's id and the track of the thread made
 * to run when known), delta after the previous event. */
void pkt_cause(struct pbuf *b, uint32_t seq, const struct cause_point *cp, uint64_t cause,
	       uint64_t delta);
/* probe_calls: the traced calls the slice holds below it (0: none, and no
 * annotation): each cost its probes, inside the slice's duration. */
void pkt_end(struct pbuf *b, uint32_t seq, bool inferred, uint64_t probe_calls, uint64_t delta);
/* The thread's state track, a child of its thread track. */
void pkt_state_track(struct pbuf *b, uint32_t seq, uint32_t thread_index);
/* A slice of state begins on the thread's state track; name: the state's
 * name, on its first use on the sequence, else NULL.  ts is a delta on the
 * sequence's clock, or BOOTTIME ns when boot is set. */
void pkt_state_begin(struct pbuf *b, uint32_t seq, uint32_t thread_index, enum thread_state state,
		     const char *name, uint64_t ts, bool boot);
/* The open slice of the state track ends, delta after the previous event. */
void pkt_state_end(struct pbuf *b, uint32_t seq, uint32_t thread_index, uint64_t delta);
/* An END with captured values (record --capture), each a debug
 * annotation: "args.NAME" or "return", typed by its kind, and costs
 * (record --costs, perfetto_costs.h); either may be NULL. */
void pkt_end_values(struct pbuf *b, uint32_t seq, bool inferred, const struct frame_values *v,
		    const struct frame_costs *c, uint64_t delta);
/* INSTANT events on the sledtrace track at ts. */
void pkt_elided(struct pbuf *b, uint64_t ts, const struct pkt_elided *e, const struct pkt_func *f,
		const struct pkt_object *o);
void pkt_gap(struct pbuf *b, uint64_t ts, const struct trace_gap *g);
void pkt_stats(struct pbuf *b, uint64_t ts, const struct trace_stats *st);
/* The head of a packet of seq whose compressed_packets are the next clen
 * bytes; at most PKT_CHUNK_HEAD bytes. */
#define PKT_CHUNK_HEAD 32
size_t pkt_chunk_head(uint8_t *p, uint32_t seq, size_t clen);

#endif
