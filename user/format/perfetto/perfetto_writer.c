// SPDX-License-Identifier: MIT
/* perfetto_writer.c: streams frames as a Perfetto trace (layout in
 * perfetto_writer.h and docs/FORMATS.md).  BEGIN/END packets are the hot path
 * (every traced call) and are encoded by hand into the thread's pending
 * buffer; the rare packets (sequence start, descriptors, stats) go through
 * protobuf-c.  Pending buffers are already a serialized Trace message, so
 * a flush deflates one buffer into one compressed_packets packet. */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "perfetto_trace.pb-c.h"
#include "format/perfetto/perfetto_writer.h"
#include "format/perfetto/perfetto_writer_int.h"
#include "util/fd_io.h"

/* libdeflate's level 1: faster and smaller than zlib's level 1 here;
 * higher levels cost more CPU than they save bytes. */
#ifndef PW_DEFLATE_LEVEL
#define PW_DEFLATE_LEVEL 1
#endif

static size_t vlen(uint64_t v)
{
	size_t n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

static uint8_t *put_v(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

static uint8_t *put_bytes(uint8_t *p, uint8_t tag, const void *s, size_t n)
{
	*p++ = tag;
	p = put_v(p, n);
	memcpy(p, s, n);
	return p + n;
}

static int buf_reserve(struct buf *b, size_t more)
{
	size_t cap = b->cap ? b->cap : 4096;
	uint8_t *p;

	if (b->len + more <= b->cap)
		return 0;
	while (cap < b->len + more)
		cap *= 2;
	p = realloc(b->p, cap);
	if (!p)
		return -ENOMEM;
	b->p = p;
	b->cap = cap;
	return 0;
}

int pw_write_all(struct perfetto_writer *w, const void *p, size_t n)
{
	int err = fd_io__write_all(w->fd, p, n);

	if (err)
		return w->err = err;
	w->bytes += n;
	return 0;
}

/* libdeflate, not zlib: the same zlib stream Perfetto inflates, in about
 * a third of the CPU time (compressing was most of sledtrace's time per
 * event) and smaller. */
static int deflate_pending(struct perfetto_writer *w, const struct buf *b, size_t *clen)
{
	size_t bound = libdeflate_zlib_compress_bound(w->zc, b->len);

	if (bound > w->zcap) {
		uint8_t *p = realloc(w->zbuf, bound);

		if (!p)
			return -ENOMEM;
		w->zbuf = p;
		w->zcap = bound;
	}
	*clen = libdeflate_zlib_compress(w->zc, b->p, b->len, w->zbuf, w->zcap);
	return *clen ? 0 : -EIO;
}

/* Outer packet: { trusted_packet_sequence_id, compressed_packets }. */
int pw_flush_seq(struct perfetto_writer *w, struct pw_seq *s, bool release)
{
	uint8_t hdr[32], *p = hdr;
	size_t clen, body;
	int err = 0;

	if (s->pending.len && w->o.plain)
		err = pw_write_all(w, s->pending.p, s->pending.len);
	else if (s->pending.len && !(err = deflate_pending(w, &s->pending, &clen))) {
		body = 1 + vlen(s->seq_id) + 2 + vlen(clen) + clen;
		*p++ = 0x0a;
		p = put_v(p, body);
		*p++ = 0x50;
		p = put_v(p, s->seq_id);
		*p++ = 0x92; /* field 50, length-delimited */
		*p++ = 0x03;
		p = put_v(p, clen);
		if (!(err = pw_write_all(w, hdr, (size_t)(p - hdr))))
			err = pw_write_all(w, w->zbuf, clen);
	}
	w->buffered -= s->pending.len;
	s->pending.len = 0;
	if (release) {
		free(s->pending.p);
		s->pending = (struct buf){ 0 };
	}
	return err ? (w->err = err) : 0;
}

static int flush_largest(struct perfetto_writer *w)
{
	struct pw_seq *big = NULL;
	int err;

	while (w->buffered > w->o.max_buffered) {
		for (size_t i = 0; i < w->nseqs; i++)
			if (w->seqs[i] && (!big || w->seqs[i]->pending.len > big->pending.len))
				big = w->seqs[i];
		if (!big || !big->pending.len)
			return 0;
		if ((err = pw_flush_seq(w, big, true)))
			return err;
		big = NULL;
	}
	return 0;
}

static int after_append(struct perfetto_writer *w, struct pw_seq *s, size_t added)
{
	int err;

	w->buffered += added;
	if (s->pending.len >= w->o.chunk_bytes && (err = pw_flush_seq(w, s, false)))
		return err;
	return w->buffered > w->o.max_buffered ? flush_largest(w) : 0;
}

int pw_append_msg(struct perfetto_writer *w, struct pw_seq *s, Perfetto__Protos__TracePacket *pkt)
{
	size_t n, before = s->pending.len;
	uint8_t *p;

	pkt->has_trusted_packet_sequence_id = 1;
	pkt->trusted_packet_sequence_id = s->seq_id;
	n = perfetto__protos__trace_packet__get_packed_size(pkt);
	if (buf_reserve(&s->pending, n + 11))
		return w->err = -ENOMEM;
	p = s->pending.p + s->pending.len;
	*p++ = 0x0a;
	p = put_v(p, n);
	p += perfetto__protos__trace_packet__pack(pkt, p);
	s->pending.len = (size_t)(p - s->pending.p);
	return after_append(w, s, s->pending.len - before);
}

static struct pw_seq *seq_get(struct perfetto_writer *w, const struct trace_thread *th)
{
	struct pw_seq *s, **v;
	size_t n;

	if (th->index < w->nseqs && w->seqs[th->index])
		return w->seqs[th->index];
	if (th->index >= w->nseqs) {
		n = (size_t)th->index * 2 + 16;
		if (!(v = realloc(w->seqs, n * sizeof(*v))))
			return NULL;
		memset(v + w->nseqs, 0, (n - w->nseqs) * sizeof(*v));
		w->seqs = v;
		w->nseqs = n;
	}
	if (!(s = calloc(1, sizeof(*s))))
		return NULL;
	s->pid = th->pid;
	s->tid = th->tid;
	s->seq_id = w->seq_ids++ + PERFETTO_META_SEQ + 1;
	return w->seqs[th->index] = s;
}

static void seq_free(struct pw_seq *s)
{
	if (!s)
		return;
	free(s->pending.p);
	free(s->interned);
	free(s);
}

/* The sequence's descriptors go out lazily with its first event, because
 * the clock snapshot wants that event's timestamp. */
static struct pw_seq *seq_ready(struct perfetto_writer *w, const struct trace_thread *th,
				uint64_t ts)
{
	struct pw_seq *s = seq_get(w, th);

	if (!s) {
		w->err = -ENOMEM;
		return NULL;
	}
	if (!s->started && (pw_start_seq(w, s, th, ts) || pw_describe_process(w, th) ||
			    pw_describe_thread(w, s, th)))
		return NULL;
	return s;
}

static int mark_interned(struct pw_seq *s, uint32_t fid)
{
	size_t need = fid / 8 + 1;

	if (need > s->interned_bytes) {
		size_t n = need * 2;
		uint8_t *p = realloc(s->interned, n);

		if (!p)
			return -ENOMEM;
		memset(p + s->interned_bytes, 0, n - s->interned_bytes);
		s->interned = p;
		s->interned_bytes = n;
	}
	s->interned[fid / 8] |= (uint8_t)(1u << (fid % 8));
	return 0;
}

static bool is_interned(const struct pw_seq *s, uint32_t fid)
{
	return fid / 8 < s->interned_bytes && (s->interned[fid / 8] >> (fid % 8)) & 1;
}

/* iid == fid for both event_names and source_locations. */
static size_t srcloc_len(const struct pw_func *f, uint32_t fid)
{
	return 1 + vlen(fid) + 1 + vlen(f->file_len) + f->file_len + 1 + vlen(f->name_len) +
	       f->name_len + (f->line ? 1 + vlen(f->line) : 0);
}

static uint8_t *put_interned(uint8_t *p, const struct pw_func *f, uint32_t fid)
{
	size_t en = 1 + vlen(fid) + 1 + vlen(f->name_len) + f->name_len;
	size_t sl = f->file ? srcloc_len(f, fid) : 0;
	size_t id = 1 + vlen(en) + en + (f->file ? 1 + vlen(sl) + sl : 0);

	*p++ = 0x62;
	p = put_v(p, id);
	*p++ = 0x12;
	p = put_v(p, en);
	*p++ = 0x08;
	p = put_v(p, fid);
	p = put_bytes(p, 0x12, f->name, f->name_len);
	if (!f->file)
		return p;
	*p++ = 0x22;
	p = put_v(p, sl);
	*p++ = 0x08;
	p = put_v(p, fid);
	p = put_bytes(p, 0x12, f->file, f->file_len);
	p = put_bytes(p, 0x1a, f->name, f->name_len);
	if (f->line) {
		*p++ = 0x20;
		p = put_v(p, f->line);
	}
	return p;
}

/* An END whose time was inferred (FRAME_INFERRED: no exit probe fired, a
 * later event proved the frame gone) carries the debug annotation
 * {name: "exit_inferred", bool_value: true}; the reader gives it back. */
static const uint8_t inferred_annotation[] = {
	0x22, 17,					/* TrackEvent.debug_annotations */
	0x52, 13,  'e', 'x', 'i', 't', '_',  'i',  'n', /* .name */
	'f',  'e', 'r', 'r', 'e', 'd', 0x10, 0x01,	/* .bool_value = true */
};

/* One TrackEvent packet: NEEDS_INCREMENTAL_STATE, the event, the
 * function's interned data on its first use here, and the delta timestamp
 * last.  The delta is the one part that varies from call to call; placed
 * last, the constant bytes of one packet and the start of the next form one
 * run that deflate matches whole (Rust tree: 2.57 -> 1.98 bytes/event). */
static int put_event(struct perfetto_writer *w, struct pw_seq *s, uint64_t ts, uint32_t fid,
		     bool begin, bool inferred)
{
	struct pw_func *f = begin ? &w->funcs[fid] : NULL;
	bool intern = begin && !is_interned(s, fid);
	uint64_t delta = ts > s->last_ts ? ts - s->last_ts : 0;
	size_t te, pkt, before;
	uint8_t *p;
	int err;

	if (intern && f->locate && (err = pw_locate(w, f)))
		return err;
	te = begin ? 2 + 1 + vlen(fid) + (f->file ? 2 + vlen(fid) : 0)
		   : 2 + (inferred ? sizeof(inferred_annotation) : 0);
	pkt = 1 + vlen(delta) + 1 + vlen(s->seq_id) + 2 + 1 + vlen(te) + te;

	/* Its own packet, ahead of the event: only on first use here. */
	if (intern && (f->mangled || f->obj >= 0 || f->addr) &&
	    (err = pw_intern_identity(w, s, fid)))
		return err;
	before = s->pending.len;
	if (intern) {
		size_t id = 1 + vlen(fid) + 1 + vlen(f->name_len) + f->name_len;

		id += 1 + vlen(id) +
		      (f->file ? 1 + vlen(srcloc_len(f, fid)) + srcloc_len(f, fid) : 0);
		pkt += 1 + vlen(id) + id;
		if (mark_interned(s, fid))
			return w->err = -ENOMEM;
	}
	if (buf_reserve(&s->pending, pkt + 10))
		return w->err = -ENOMEM;
	p = s->pending.p + s->pending.len;
	*p++ = 0x0a;
	p = put_v(p, pkt);
	*p++ = 0x50;
	p = put_v(p, s->seq_id);
	*p++ = 0x68;
	*p++ = SEQ_NEEDS;
	*p++ = 0x5a;
	p = put_v(p, te);
	*p++ = 0x48;
	*p++ = begin ? 1 : 2;
	if (!begin && inferred) {
		memcpy(p, inferred_annotation, sizeof(inferred_annotation));
		p += sizeof(inferred_annotation);
	}
	if (begin) {
		*p++ = 0x50;
		p = put_v(p, fid);
		if (f->file) {
			*p++ = 0x90; /* field 34, varint */
			*p++ = 0x02;
			p = put_v(p, fid);
		}
	}
	if (intern)
		p = put_interned(p, f, fid);
	*p++ = 0x40;
	p = put_v(p, delta);
	s->pending.len = (size_t)(p - s->pending.p);
	s->last_ts += delta;
	return after_append(w, s, s->pending.len - before);
}

/* Index of fn's object in objs (few: linear search), -1 when unknown. */
static int32_t object_of(struct perfetto_writer *w, const struct trace_function *fn)
{
	const char *bid = fn->build_id ? fn->build_id : "";
	struct pw_object *v;

	if (!fn->object || !*fn->object)
		return -1;
	for (size_t i = 0; i < w->nobjs; i++)
		if (!strcmp(w->objs[i].path, fn->object) && !strcmp(w->objs[i].build_id, bid))
			return (int32_t)i;
	if (w->nobjs >= INT32_MAX || !(v = realloc(w->objs, (w->nobjs + 1) * sizeof(*v))))
		return -ENOMEM;
	w->objs = v;
	v[w->nobjs].path = strdup(fn->object);
	v[w->nobjs].build_id = strdup(bid);
	if (!v[w->nobjs].path || !v[w->nobjs].build_id) {
		free(v[w->nobjs].path);
		free(v[w->nobjs].build_id);
		return -ENOMEM;
	}
	return (int32_t)w->nobjs++;
}

static int pw_function(void *ctx, const struct trace_function *fn)
{
	struct perfetto_writer *w = ctx;
	struct pw_func *f;

	if (!fn->id || !fn->name)
		return -EINVAL;
	if (fn->id >= w->nfuncs) {
		size_t n = fn->id * 2 + 16;

		if (!(f = realloc(w->funcs, n * sizeof(*f))))
			return w->err = -ENOMEM;
		memset(f + w->nfuncs, 0, (n - w->nfuncs) * sizeof(*f));
		for (size_t i = w->nfuncs; i < n; i++)
			f[i].obj = -1;
		w->funcs = f;
		w->nfuncs = n;
	}
	f = &w->funcs[fn->id];
	if (f->name)
		return 0;
	f->name = strdup(fn->name);
	f->file = fn->file ? strdup(fn->file) : NULL;
	f->mangled = fn->mangled && *fn->mangled ? strdup(fn->mangled) : NULL;
	if (!f->name || (fn->file && !f->file) || (fn->mangled && *fn->mangled && !f->mangled) ||
	    (f->obj = object_of(w, fn)) == -ENOMEM)
		return w->err = -ENOMEM;
	f->addr = fn->addr;
	f->name_len = (uint32_t)strlen(f->name);
	f->file_len = f->file ? (uint32_t)strlen(f->file) : 0;
	f->line = fn->line;
	if (!fn->file && fn->locate) {
		f->locate = fn->locate;
		f->locate_ctx = fn->locate_ctx;
		f->locate_key = fn->locate_key;
	}
	return 0;
}

/* A function's file and line are asked for when a sequence first uses it:
 * the producer's lookup is too costly to make for every function known. */
int pw_locate(struct perfetto_writer *w, struct pw_func *f)
{
	const char *file = NULL;
	uint32_t line = 0;

	if (!f->locate)
		return 0;
	if (!f->locate(f->locate_ctx, f->locate_key, &file, &line) && file) {
		if (!(f->file = strdup(file)))
			return w->err = -ENOMEM;
		f->file_len = (uint32_t)strlen(f->file);
		f->line = line;
	}
	f->locate = NULL;
	return 0;
}

static int pw_thread(void *ctx, const struct trace_thread *th)
{
	struct perfetto_writer *w = ctx;

	if (!seq_get(w, th))
		return w->err = -ENOMEM;
	return w->err;
}

static int pw_enter(void *ctx, const struct trace_thread *th, const struct frame *stack,
		    uint32_t depth)
{
	struct perfetto_writer *w = ctx;
	const struct frame *f = &stack[depth - 1];
	struct pw_seq *s;

	if (w->err || depth > w->o.max_depth)
		return w->err;
	if (f->fid >= w->nfuncs || !w->funcs[f->fid].name)
		return -EINVAL;
	if (f->begin_ns > w->max_ts)
		w->max_ts = f->begin_ns;
	if (!(s = seq_ready(w, th, f->begin_ns)))
		return w->err;
	return put_event(w, s, f->begin_ns, f->fid, true, false);
}

static int add_elided(struct perfetto_writer *w, const struct trace_thread *th, uint32_t fid,
		      uint64_t calls, uint64_t total_ns)
{
	uint64_t key = ((uint64_t)th->index << 32) | fid, idx;
	struct pw_elided *e;

	if (!u64map__get(&w->elided_idx, key, &idx)) {
		e = realloc(w->elided, (w->nelided + 1) * sizeof(*e));
		if (!e)
			return w->err = -ENOMEM;
		w->elided = e;
		idx = w->nelided;
		if (u64map__put(&w->elided_idx, key, idx))
			return w->err = -ENOMEM;
		w->elided[w->nelided++] = (struct pw_elided){
			.pid = th->pid, .tid = th->tid, .index = th->index, .fid = fid
		};
	}
	w->elided[idx].calls += calls;
	w->elided[idx].total_ns += total_ns;
	return 0;
}

static int pw_leave(void *ctx, const struct trace_thread *th, const struct frame *stack,
		    uint32_t depth, uint64_t end_ns, enum frame_end how)
{
	struct perfetto_writer *w = ctx;
	const struct frame *f = &stack[depth - 1];
	struct pw_seq *s;

	if (w->err)
		return w->err;
	if (end_ns > w->max_ts)
		w->max_ts = end_ns;
	if (depth > w->o.max_depth) {
		w->capped++;
		return add_elided(w, th, f->fid, 1,
				  end_ns > f->begin_ns ? end_ns - f->begin_ns : 0);
	}
	if (!(s = seq_ready(w, th, end_ns)))
		return w->err;
	return put_event(w, s, end_ns, 0, false, how == FRAME_INFERRED);
}

static int pw_elided(void *ctx, const struct trace_thread *th, uint32_t fid, uint64_t calls,
		     uint64_t total_ns)
{
	struct perfetto_writer *w = ctx;

	return w->err ? w->err : add_elided(w, th, fid, calls, total_ns);
}

/* The thread is over: its last chunk goes out and its buffers go. */
static int pw_thread_end(void *ctx, const struct trace_thread *th)
{
	struct perfetto_writer *w = ctx;
	struct pw_seq *s = th->index < w->nseqs ? w->seqs[th->index] : NULL;

	if (w->err || !s)
		return w->err;
	if (s->started)
		pw_flush_seq(w, s, true);
	seq_free(s);
	w->seqs[th->index] = NULL;
	return w->err;
}

static int pw_stats(void *ctx, const struct trace_stats *st)
{
	struct perfetto_writer *w = ctx;

	w->stats = *st;
	return w->err;
}

static int pw_gap(void *ctx, const struct trace_gap *g)
{
	struct perfetto_writer *w = ctx;

	if (!w->err)
		w->err = pw_write_gap(w, g);
	return w->err;
}

static int pw_finish(void *ctx)
{
	struct perfetto_writer *w = ctx;

	if (w->finished || w->err)
		return w->err ? w->err : -EALREADY;
	w->finished = true;
	for (size_t i = 0; i < w->nseqs && !w->err; i++)
		if (w->seqs[i])
			pw_flush_seq(w, w->seqs[i], true);
	for (size_t i = 0; i < w->nelided && !w->err; i++)
		if (w->elided[i].fid < w->nfuncs && w->funcs[w->elided[i].fid].name)
			pw_write_elided(w, &w->elided[i]);
	if (!w->err)
		pw_write_stats(w);
	if (!w->err)
		pw_flush_seq(w, &w->meta, true);
	return w->err;
}

static const struct frame_sink_ops pw_ops = {
	.function = pw_function,
	.thread = pw_thread,
	.enter = pw_enter,
	.leave = pw_leave,
	.elided = pw_elided,
	.stats = pw_stats,
	.gap = pw_gap,
	.finish = pw_finish,
	.thread_end = pw_thread_end,
};

struct frame_sink perfetto_writer__sink(struct perfetto_writer *w)
{
	return (struct frame_sink){ .ops = &pw_ops, .ctx = w };
}

uint64_t perfetto_writer__bytes(const struct perfetto_writer *w)
{
	return w->bytes;
}

int perfetto_writer__new(int fd, const struct perfetto_writer_opts *opts,
			 struct perfetto_writer **out)
{
	struct perfetto_writer *w = calloc(1, sizeof(*w));
	int err;

	if (!w)
		return -ENOMEM;
	w->fd = fd;
	if (opts)
		w->o = *opts;
	if (!w->o.chunk_bytes)
		w->o.chunk_bytes = 64 * 1024;
	if (!w->o.max_buffered)
		w->o.max_buffered = 4 * 1024 * 1024;
	if (!w->o.max_depth)
		w->o.max_depth = PERFETTO_MAX_DEPTH;
	w->zc = libdeflate_alloc_compressor(PW_DEFLATE_LEVEL);
	if (!w->zc) {
		free(w);
		return -ENOMEM;
	}
	if ((err = pw_write_header(w))) {
		perfetto_writer__free(w);
		return err;
	}
	*out = w;
	return 0;
}

void perfetto_writer__free(struct perfetto_writer *w)
{
	if (!w)
		return;
	for (size_t i = 0; i < w->nseqs; i++)
		seq_free(w->seqs[i]);
	for (size_t i = 0; i < w->nfuncs; i++) {
		free(w->funcs[i].name);
		free(w->funcs[i].file);
		free(w->funcs[i].mangled);
	}
	for (size_t i = 0; i < w->nobjs; i++) {
		free(w->objs[i].path);
		free(w->objs[i].build_id);
	}
	free(w->objs);
	libdeflate_free_compressor(w->zc);
	free(w->meta.pending.p);
	free(w->seqs);
	free(w->funcs);
	free(w->elided);
	free(w->zbuf);
	u64map__clear(&w->procs);
	u64map__clear(&w->elided_idx);
	free(w);
}
