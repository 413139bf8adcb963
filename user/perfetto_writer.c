/* perfetto_writer.c: streams frames as a Perfetto trace (layout in
 * perfetto_writer.h and formats.md).  BEGIN/END packets are the hot path
 * (every traced call) and are encoded by hand into the thread's pending
 * buffer; the rare packets (sequence start, descriptors, stats) go through
 * protobuf-c.  Pending buffers are already a serialized Trace message, so
 * a flush deflates one buffer into one compressed_packets packet. */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "perfetto_trace.pb-c.h"
#include "perfetto_writer.h"
#include "u64map.h"

#define CLOCK_BOOTTIME_ID 6
#define CLOCK_SEQ_ID 64 /* per-sequence incremental clock, 1 ns units */
#define SEQ_CLEARED 1
#define SEQ_NEEDS 2

const struct perfetto_stat_field perfetto_stat_fields[] = {
#define F(x) { #x, offsetof(struct trace_stats, x) }
	F(events), F(ringbuf_drops), F(unmatched_exits), F(inferred_exits),
	F(unfinished), F(depth_capped), F(max_depth_dropped), F(short_dropped),
	F(ignored_sleds),
#undef F
};
const size_t perfetto_stat_nfields =
	sizeof(perfetto_stat_fields) / sizeof(perfetto_stat_fields[0]);

struct buf {
	uint8_t *p;
	size_t len, cap;
};

struct pw_func {
	char *name, *file; /* name NULL: never announced */
	uint32_t name_len, file_len, line;
};

/* One traced thread = one packet sequence. */
struct pw_seq {
	uint32_t pid, tid, seq_id;
	bool started;
	uint64_t last_ts;  /* running value of the incremental clock */
	struct buf pending; /* framed packets not yet written */
	uint8_t *interned;  /* bit per fid: name (and location) sent here */
	size_t interned_bytes;
};

struct pw_elided {
	uint32_t pid, tid, fid;
	uint64_t calls, total_ns;
};

struct perfetto_writer {
	int fd;
	int err; /* first error, sticky */
	struct perfetto_writer_opts o;
	uint64_t bytes;
	struct pw_func *funcs; /* by fid */
	size_t nfuncs;
	struct pw_seq **seqs; /* creation order */
	size_t nseqs;
	struct u64map seq_by_tid, pids, elided_idx;
	struct pw_seq *cached;
	struct pw_elided *elided;
	size_t nelided;
	size_t buffered; /* sum of pending lengths */
	uint64_t max_ts, capped;
	struct trace_stats stats;
	struct pw_seq meta;
	z_stream z;
	bool z_ready, finished;
	uint8_t *zbuf;
	size_t zcap;
};

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

static int write_all(struct perfetto_writer *w, const void *p, size_t n)
{
	while (n) {
		ssize_t r = write(w->fd, p, n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return w->err = r < 0 ? -errno : -EIO;
		p = (const uint8_t *)p + r;
		n -= (size_t)r;
		w->bytes += (uint64_t)r;
	}
	return 0;
}

static int deflate_pending(struct perfetto_writer *w, const struct buf *b, size_t *clen)
{
	size_t bound = deflateBound(&w->z, b->len);

	if (bound > w->zcap) {
		uint8_t *p = realloc(w->zbuf, bound);

		if (!p)
			return -ENOMEM;
		w->zbuf = p;
		w->zcap = bound;
	}
	if (deflateReset(&w->z) != Z_OK)
		return -EIO;
	w->z.next_in = b->p;
	w->z.avail_in = (uInt)b->len;
	w->z.next_out = w->zbuf;
	w->z.avail_out = (uInt)w->zcap;
	if (deflate(&w->z, Z_FINISH) != Z_STREAM_END)
		return -EIO;
	*clen = w->zcap - w->z.avail_out;
	return 0;
}

/* Outer packet: { trusted_packet_sequence_id, compressed_packets }. */
static int flush_seq(struct perfetto_writer *w, struct pw_seq *s, bool release)
{
	uint8_t hdr[32], *p = hdr;
	size_t clen, body;
	int err = 0;

	if (s->pending.len && w->o.plain)
		err = write_all(w, s->pending.p, s->pending.len);
	else if (s->pending.len && !(err = deflate_pending(w, &s->pending, &clen))) {
		body = 1 + vlen(s->seq_id) + 2 + vlen(clen) + clen;
		*p++ = 0x0a;
		p = put_v(p, body);
		*p++ = 0x50;
		p = put_v(p, s->seq_id);
		*p++ = 0x92; /* field 50, length-delimited */
		*p++ = 0x03;
		p = put_v(p, clen);
		if (!(err = write_all(w, hdr, (size_t)(p - hdr))))
			err = write_all(w, w->zbuf, clen);
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
			if (!big || w->seqs[i]->pending.len > big->pending.len)
				big = w->seqs[i];
		if (!big || !big->pending.len)
			return 0;
		if ((err = flush_seq(w, big, true)))
			return err;
		big = NULL;
	}
	return 0;
}

static int after_append(struct perfetto_writer *w, struct pw_seq *s, size_t added)
{
	int err;

	w->buffered += added;
	if (s->pending.len >= w->o.chunk_bytes && (err = flush_seq(w, s, false)))
		return err;
	return w->buffered > w->o.max_buffered ? flush_largest(w) : 0;
}

static int append_msg(struct perfetto_writer *w, struct pw_seq *s,
		      Perfetto__Protos__TracePacket *pkt)
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


static int start_seq(struct perfetto_writer *w, struct pw_seq *s,
		     const struct trace_thread *th, uint64_t ts)
{
	Perfetto__Protos__TracePacket pkt = PERFETTO__PROTOS__TRACE_PACKET__INIT;
	Perfetto__Protos__ClockSnapshot snap = PERFETTO__PROTOS__CLOCK_SNAPSHOT__INIT;
	Perfetto__Protos__ClockSnapshot__Clock boot =
		PERFETTO__PROTOS__CLOCK_SNAPSHOT__CLOCK__INIT;
	Perfetto__Protos__ClockSnapshot__Clock seqclk =
		PERFETTO__PROTOS__CLOCK_SNAPSHOT__CLOCK__INIT;
	Perfetto__Protos__ClockSnapshot__Clock *clocks[] = { &boot, &seqclk };
	Perfetto__Protos__TracePacketDefaults defs = PERFETTO__PROTOS__TRACE_PACKET_DEFAULTS__INIT;
	Perfetto__Protos__TrackEventDefaults tdefs = PERFETTO__PROTOS__TRACK_EVENT_DEFAULTS__INIT;

	boot.has_clock_id = seqclk.has_clock_id = 1;
	boot.clock_id = CLOCK_BOOTTIME_ID;
	seqclk.clock_id = CLOCK_SEQ_ID;
	boot.has_timestamp = seqclk.has_timestamp = 1;
	boot.timestamp = seqclk.timestamp = ts;
	seqclk.has_is_incremental = seqclk.is_incremental = 1;
	seqclk.has_unit_multiplier_ns = 1;
	seqclk.unit_multiplier_ns = 1;
	snap.n_clocks = 2;
	snap.clocks = clocks;
	snap.has_primary_trace_clock = 1;
	snap.primary_trace_clock = CLOCK_BOOTTIME_ID;
	tdefs.has_track_uuid = 1;
	tdefs.track_uuid = PERFETTO_THREAD_UUID(th->tid);
	defs.has_timestamp_clock_id = 1;
	defs.timestamp_clock_id = CLOCK_SEQ_ID;
	defs.track_event_defaults = &tdefs;
	pkt.has_sequence_flags = 1;
	pkt.sequence_flags = SEQ_CLEARED;
	pkt.has_first_packet_on_sequence = pkt.first_packet_on_sequence = 1;
	pkt.has_timestamp = 1;
	pkt.timestamp = ts;
	pkt.has_timestamp_clock_id = 1;
	pkt.timestamp_clock_id = CLOCK_BOOTTIME_ID;
	pkt.clock_snapshot = &snap;
	pkt.trace_packet_defaults = &defs;
	s->started = true;
	s->last_ts = ts;
	return append_msg(w, s, &pkt);
}

/* Once per pid, written through at once on the sledtrace sequence: thread
 * sequences are flushed in any order, and each one's thread descriptor
 * must find its parent already in the file. */
static int describe_process(struct perfetto_writer *w, const struct trace_thread *th)
{
	Perfetto__Protos__TracePacket pkt = PERFETTO__PROTOS__TRACE_PACKET__INIT;
	Perfetto__Protos__TrackDescriptor td = PERFETTO__PROTOS__TRACK_DESCRIPTOR__INIT;
	Perfetto__Protos__ProcessDescriptor pd = PERFETTO__PROTOS__PROCESS_DESCRIPTOR__INIT;
	char *cmdline = (char *)th->cmdline;
	uint64_t seen;
	int err;

	if (u64map__get(&w->pids, (uint64_t)th->pid + 1, &seen))
		return 0;
	if ((err = u64map__put(&w->pids, (uint64_t)th->pid + 1, 1)))
		return w->err = err;
	td.has_uuid = 1;
	td.uuid = PERFETTO_PROCESS_UUID(th->pid);
	pd.has_pid = 1;
	pd.pid = (int32_t)th->pid;
	pd.process_name = (char *)th->process_name;
	if (cmdline) {
		pd.n_cmdline = 1;
		pd.cmdline = &cmdline;
	}
	td.process = &pd;
	pkt.track_descriptor = &td;
	if ((err = append_msg(w, &w->meta, &pkt)))
		return err;
	return flush_seq(w, &w->meta, false);
}

static int describe_thread(struct perfetto_writer *w, struct pw_seq *s,
			   const struct trace_thread *th)
{
	Perfetto__Protos__TracePacket pkt = PERFETTO__PROTOS__TRACE_PACKET__INIT;
	Perfetto__Protos__TrackDescriptor td = PERFETTO__PROTOS__TRACK_DESCRIPTOR__INIT;
	Perfetto__Protos__ThreadDescriptor thd = PERFETTO__PROTOS__THREAD_DESCRIPTOR__INIT;

	td.has_uuid = td.has_parent_uuid = 1;
	td.uuid = PERFETTO_THREAD_UUID(th->tid);
	td.parent_uuid = PERFETTO_PROCESS_UUID(th->pid);
	thd.has_pid = thd.has_tid = 1;
	thd.pid = (int32_t)th->pid;
	thd.tid = (int32_t)th->tid;
	thd.thread_name = (char *)th->name;
	td.thread = &thd;
	pkt.track_descriptor = &td;
	return append_msg(w, s, &pkt);
}

static struct pw_seq *seq_get(struct perfetto_writer *w, const struct trace_thread *th)
{
	struct pw_seq *s = w->cached, **v;
	uint64_t idx;

	if (s && s->tid == th->tid)
		return s;
	if (u64map__get(&w->seq_by_tid, (uint64_t)th->tid + 1, &idx))
		return w->cached = w->seqs[idx];
	v = realloc(w->seqs, (w->nseqs + 1) * sizeof(*v));
	if (!v)
		return NULL;
	w->seqs = v;
	if (!(s = calloc(1, sizeof(*s))))
		return NULL;
	if (u64map__put(&w->seq_by_tid, (uint64_t)th->tid + 1, w->nseqs)) {
		free(s);
		return NULL;
	}
	s->pid = th->pid;
	s->tid = th->tid;
	s->seq_id = (uint32_t)w->nseqs + PERFETTO_META_SEQ + 1;
	w->seqs[w->nseqs++] = s;
	return w->cached = s;
}

/* The sequence's descriptors go out lazily with its first event, because
 * the clock snapshot wants that event's timestamp. */
static struct pw_seq *seq_ready(struct perfetto_writer *w,
				const struct trace_thread *th, uint64_t ts)
{
	struct pw_seq *s = seq_get(w, th);

	if (!s) {
		w->err = -ENOMEM;
		return NULL;
	}
	if (!s->started && (start_seq(w, s, th, ts) || describe_process(w, th) ||
			    describe_thread(w, s, th)))
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
	return 1 + vlen(fid) + 1 + vlen(f->file_len) + f->file_len + 1 +
	       vlen(f->name_len) + f->name_len + (f->line ? 1 + vlen(f->line) : 0);
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

/* One TrackEvent packet: delta timestamp, NEEDS_INCREMENTAL_STATE, the
 * event, and the function's interned data on its first use here. */
static int put_event(struct perfetto_writer *w, struct pw_seq *s, uint64_t ts,
		     uint32_t fid, bool begin)
{
	const struct pw_func *f = begin ? &w->funcs[fid] : NULL;
	bool intern = begin && !is_interned(s, fid);
	uint64_t delta = ts > s->last_ts ? ts - s->last_ts : 0;
	size_t te = begin ? 2 + 1 + vlen(fid) + (f->file ? 2 + vlen(fid) : 0) : 2;
	size_t pkt = 1 + vlen(delta) + 1 + vlen(s->seq_id) + 2 + 1 + vlen(te) + te;
	size_t before = s->pending.len;
	uint8_t *p;

	if (intern) {
		size_t id = 1 + vlen(fid) + 1 + vlen(f->name_len) + f->name_len;

		id += 1 + vlen(id) + (f->file ? 1 + vlen(srcloc_len(f, fid)) + srcloc_len(f, fid) : 0);
		pkt += 1 + vlen(id) + id;
		if (mark_interned(s, fid))
			return w->err = -ENOMEM;
	}
	if (buf_reserve(&s->pending, pkt + 10))
		return w->err = -ENOMEM;
	p = s->pending.p + s->pending.len;
	*p++ = 0x0a;
	p = put_v(p, pkt);
	*p++ = 0x40;
	p = put_v(p, delta);
	*p++ = 0x50;
	p = put_v(p, s->seq_id);
	*p++ = 0x68;
	*p++ = SEQ_NEEDS;
	*p++ = 0x5a;
	p = put_v(p, te);
	*p++ = 0x48;
	*p++ = begin ? 1 : 2;
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
	s->pending.len = (size_t)(p - s->pending.p);
	s->last_ts += delta;
	return after_append(w, s, s->pending.len - before);
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
		w->funcs = f;
		w->nfuncs = n;
	}
	f = &w->funcs[fn->id];
	if (f->name)
		return 0;
	f->name = strdup(fn->name);
	f->file = fn->file ? strdup(fn->file) : NULL;
	if (!f->name || (fn->file && !f->file))
		return w->err = -ENOMEM;
	f->name_len = (uint32_t)strlen(f->name);
	f->file_len = f->file ? (uint32_t)strlen(f->file) : 0;
	f->line = fn->line;
	return 0;
}

static int pw_thread(void *ctx, const struct trace_thread *th)
{
	struct perfetto_writer *w = ctx;

	if (!seq_get(w, th))
		return w->err = -ENOMEM;
	return w->err;
}

static int pw_enter(void *ctx, const struct trace_thread *th,
		    const struct frame *stack, uint32_t depth)
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
	return put_event(w, s, f->begin_ns, f->fid, true);
}

static int add_elided(struct perfetto_writer *w, const struct trace_thread *th,
		      uint32_t fid, uint64_t calls, uint64_t total_ns)
{
	uint64_t key = ((uint64_t)th->tid << 32) | fid, idx;
	struct pw_elided *e;

	if (!u64map__get(&w->elided_idx, key, &idx)) {
		e = realloc(w->elided, (w->nelided + 1) * sizeof(*e));
		if (!e)
			return w->err = -ENOMEM;
		w->elided = e;
		idx = w->nelided;
		if (u64map__put(&w->elided_idx, key, idx))
			return w->err = -ENOMEM;
		w->elided[w->nelided++] = (struct pw_elided){ .pid = th->pid,
							      .tid = th->tid, .fid = fid };
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

	(void)how;
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
	return put_event(w, s, end_ns, 0, false);
}

static int pw_elided(void *ctx, const struct trace_thread *th, uint32_t fid,
		     uint64_t calls, uint64_t total_ns)
{
	struct perfetto_writer *w = ctx;

	return w->err ? w->err : add_elided(w, th, fid, calls, total_ns);
}

static int pw_stats(void *ctx, const struct trace_stats *st)
{
	struct perfetto_writer *w = ctx;

	w->stats = *st;
	return w->err;
}

static Perfetto__Protos__DebugAnnotation uint_ann(const char *name, uint64_t v)
{
	Perfetto__Protos__DebugAnnotation a = PERFETTO__PROTOS__DEBUG_ANNOTATION__INIT;

	a.name = (char *)name;
	a.has_uint_value = 1;
	a.uint_value = v;
	return a;
}

/* An INSTANT on the sledtrace track carrying named values. */
static int meta_event(struct perfetto_writer *w, const char *name,
		      Perfetto__Protos__DebugAnnotation *anns, size_t n)
{
	Perfetto__Protos__TracePacket pkt = PERFETTO__PROTOS__TRACE_PACKET__INIT;
	Perfetto__Protos__TrackEvent ev = PERFETTO__PROTOS__TRACK_EVENT__INIT;
	Perfetto__Protos__DebugAnnotation *ptrs[16];

	for (size_t i = 0; i < n; i++)
		ptrs[i] = &anns[i];
	ev.has_type = ev.has_track_uuid = 1;
	ev.type = PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_INSTANT;
	ev.track_uuid = PERFETTO_META_UUID;
	ev.name = (char *)name;
	ev.n_debug_annotations = n;
	ev.debug_annotations = ptrs;
	pkt.has_timestamp = 1;
	pkt.timestamp = w->max_ts;
	pkt.track_event = &ev;
	return append_msg(w, &w->meta, &pkt);
}

static int write_elided(struct perfetto_writer *w, const struct pw_elided *e)
{
	const struct pw_func *f = &w->funcs[e->fid];
	Perfetto__Protos__DebugAnnotation a[7];
	size_t n = 0;

	a[n++] = uint_ann("pid", e->pid);
	a[n++] = uint_ann("tid", e->tid);
	a[n++] = uint_ann("calls", e->calls);
	a[n++] = uint_ann("total_ns", e->total_ns);
	a[n++] = uint_ann("line", f->line);
	a[n] = uint_ann("function", 0);
	a[n].has_uint_value = 0;
	a[n++].string_value = f->name;
	if (f->file) {
		a[n] = uint_ann("file", 0);
		a[n].has_uint_value = 0;
		a[n++].string_value = f->file;
	}
	return meta_event(w, PERFETTO_ELIDED_EVENT, a, n);
}

static int write_stats(struct perfetto_writer *w)
{
	Perfetto__Protos__DebugAnnotation a[16];
	struct trace_stats st = w->stats;

	st.depth_capped += w->capped;
	for (size_t i = 0; i < perfetto_stat_nfields; i++)
		a[i] = uint_ann(perfetto_stat_fields[i].name,
				*(const uint64_t *)((const char *)&st +
						    perfetto_stat_fields[i].offset));
	return meta_event(w, PERFETTO_STATS_EVENT, a, perfetto_stat_nfields);
}

static int pw_finish(void *ctx)
{
	struct perfetto_writer *w = ctx;

	if (w->finished || w->err)
		return w->err ? w->err : -EALREADY;
	w->finished = true;
	for (size_t i = 0; i < w->nseqs && !w->err; i++)
		flush_seq(w, w->seqs[i], true);
	for (size_t i = 0; i < w->nelided && !w->err; i++)
		if (w->elided[i].fid < w->nfuncs && w->funcs[w->elided[i].fid].name)
			write_elided(w, &w->elided[i]);
	if (!w->err)
		write_stats(w);
	if (!w->err)
		flush_seq(w, &w->meta, true);
	return w->err;
}

static const struct frame_sink_ops pw_ops = {
	.function = pw_function,
	.thread = pw_thread,
	.enter = pw_enter,
	.leave = pw_leave,
	.elided = pw_elided,
	.stats = pw_stats,
	.finish = pw_finish,
};

struct frame_sink perfetto_writer__sink(struct perfetto_writer *w)
{
	return (struct frame_sink){ .ops = &pw_ops, .ctx = w };
}

uint64_t perfetto_writer__bytes(const struct perfetto_writer *w)
{
	return w->bytes;
}

/* Sequence 1 opens the file, uncompressed, so the file is recognisable. */
static int write_header(struct perfetto_writer *w)
{
	Perfetto__Protos__TracePacket pkt = PERFETTO__PROTOS__TRACE_PACKET__INIT;
	Perfetto__Protos__TrackDescriptor td = PERFETTO__PROTOS__TRACK_DESCRIPTOR__INIT;
	int err;

	td.has_uuid = 1;
	td.uuid = PERFETTO_META_UUID;
	td.name = PERFETTO_META_TRACK;
	pkt.has_sequence_flags = 1;
	pkt.sequence_flags = SEQ_CLEARED;
	pkt.has_first_packet_on_sequence = pkt.first_packet_on_sequence = 1;
	pkt.track_descriptor = &td;
	w->meta.seq_id = PERFETTO_META_SEQ;
	if ((err = append_msg(w, &w->meta, &pkt)))
		return err;
	err = write_all(w, w->meta.pending.p, w->meta.pending.len);
	w->buffered -= w->meta.pending.len;
	w->meta.pending.len = 0;
	return err;
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
	if (deflateInit(&w->z, 1) != Z_OK) {
		free(w);
		return -ENOMEM;
	}
	w->z_ready = true;
	if ((err = write_header(w))) {
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
	for (size_t i = 0; i < w->nseqs; i++) {
		free(w->seqs[i]->pending.p);
		free(w->seqs[i]->interned);
		free(w->seqs[i]);
	}
	for (size_t i = 0; i < w->nfuncs; i++) {
		free(w->funcs[i].name);
		free(w->funcs[i].file);
	}
	if (w->z_ready)
		deflateEnd(&w->z);
	free(w->meta.pending.p);
	free(w->seqs);
	free(w->funcs);
	free(w->elided);
	free(w->zbuf);
	u64map__clear(&w->seq_by_tid);
	u64map__clear(&w->pids);
	u64map__clear(&w->elided_idx);
	free(w);
}
