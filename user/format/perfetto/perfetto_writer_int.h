/* SPDX-License-Identifier: MIT */
/* perfetto_writer_int.h: the Perfetto writer's state, shared by its two
 * halves: perfetto_writer.c (the sink, the hand-encoded hot packets, the
 * chunked output) and perfetto_packets.c (the rare packets, built with
 * protobuf-c).  Not for use outside the writer. */
#ifndef SLEDTRACE_PERFETTO_WRITER_INT_H
#define SLEDTRACE_PERFETTO_WRITER_INT_H

#include <libdeflate.h>

#include "perfetto_trace.pb-c.h"
#include "format/perfetto/perfetto_writer.h"
#include "util/u64map.h"

#define CLOCK_BOOTTIME_ID 6
#define CLOCK_SEQ_ID 64 /* per-sequence incremental clock, 1 ns units */
#define SEQ_CLEARED 1
#define SEQ_NEEDS 2

struct buf {
	uint8_t *p;
	size_t len, cap;
};

struct pw_func {
	char *name, *file; /* name NULL: never announced */
	uint32_t name_len, file_len, line;
	char *mangled; /* NULL when unknown */
	int32_t obj;   /* index into objs, -1 when unknown */
	uint64_t addr; /* 0 when unknown */
	/* Set until file and line are asked for (trace_function.locate). */
	int (*locate)(void *ctx, uint64_t key, const char **file, uint32_t *line);
	void *locate_ctx;
	uint64_t locate_key;
};

/* An object functions live in: interned once per sequence as a Mapping. */
/* Fills f->file and f->line from f->locate on first need; 0 or -ENOMEM. */
int pw_locate(struct perfetto_writer *w, struct pw_func *f);

struct pw_object {
	char *path, *build_id;
};

/* One traced thread = one packet sequence. */
struct pw_seq {
	uint32_t pid, tid, seq_id;
	uint64_t objs_interned; /* bit per object index (< 64) sent here */
	bool started;
	uint64_t last_ts;   /* running value of the incremental clock */
	struct buf pending; /* framed packets not yet written */
	uint8_t *interned;  /* bit per fid: name (and location) sent here */
	size_t interned_bytes;
};

struct pw_elided {
	uint32_t pid, tid, index, fid;
	uint64_t calls, total_ns;
};

struct perfetto_writer {
	int fd;
	int err; /* first error, sticky */
	struct perfetto_writer_opts o;
	uint64_t bytes;
	struct pw_func *funcs; /* by fid */
	size_t nfuncs;
	struct pw_seq **seqs; /* by thread index; NULL before its first use or after its end */
	size_t nseqs;	      /* length of seqs */
	uint32_t seq_ids;     /* sequences started so far */
	struct pw_object *objs;
	size_t nobjs;
	struct u64map procs;	  /* process index + 1 -> 1 once described */
	struct u64map elided_idx; /* thread index << 32 | fid -> index into elided */
	struct pw_elided *elided;
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

/* perfetto_writer.c */
int pw_write_all(struct perfetto_writer *w, const void *p, size_t n);
int pw_flush_seq(struct perfetto_writer *w, struct pw_seq *s, bool release);
int pw_append_msg(struct perfetto_writer *w, struct pw_seq *s, Perfetto__Protos__TracePacket *pkt);

/* perfetto_packets.c */
int pw_start_seq(struct perfetto_writer *w, struct pw_seq *s, const struct trace_thread *th,
		 uint64_t ts);
int pw_describe_process(struct perfetto_writer *w, const struct trace_thread *th);
int pw_describe_thread(struct perfetto_writer *w, struct pw_seq *s, const struct trace_thread *th);
int pw_intern_identity(struct perfetto_writer *w, struct pw_seq *s, uint32_t fid);
int pw_write_elided(struct perfetto_writer *w, const struct pw_elided *e);
int pw_write_gap(struct perfetto_writer *w, const struct trace_gap *g);
int pw_write_stats(struct perfetto_writer *w);
int pw_write_header(struct perfetto_writer *w);

#endif
