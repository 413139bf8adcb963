// SPDX-License-Identifier: MIT
/* perfetto_seq.c: the writer's packet sequences (perfetto_writer_int.h).
 * Packets are appended to their sequence's pending buffer, which is
 * already a serialized Trace message, so a flush deflates one buffer into
 * one compressed_packets packet.  A sequence's buffer goes out when it
 * holds a chunk, or, when all of them together hold too much, the largest
 * one does. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "format/perfetto/perfetto_writer_int.h"

static int write_out(struct perfetto_writer *w, const void *p, size_t n)
{
	int err = byte_sink__write(&w->out, p, n);

	if (err)
		return w->err = err;
	w->bytes += n;
	return 0;
}

/* Sequence 1 opens the file, uncompressed, so the file is recognisable. */
int pw_seq_header(struct perfetto_writer *w)
{
	struct pbuf *b = &w->meta.pending;

	w->meta.seq_id = PERFETTO_META_SEQ;
	pkt_header(b);
	if (b->err)
		return w->err = b->err;
	write_out(w, b->p, b->len);
	pbuf__reset(b);
	return w->err;
}

/* libdeflate, not zlib: the same zlib stream Perfetto inflates, in about
 * a third of the CPU time (compressing was most of sledtrace's time per
 * event) and smaller. */
static int deflate_pending(struct perfetto_writer *w, const struct pbuf *b, size_t *clen)
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

int pw_seq_flush(struct perfetto_writer *w, struct pw_seq *s, bool release)
{
	uint8_t head[PKT_CHUNK_HEAD];
	size_t clen;
	int err = 0;

	if (s->pending.len && w->o.plain)
		err = write_out(w, s->pending.p, s->pending.len);
	else if (s->pending.len && !(err = deflate_pending(w, &s->pending, &clen)) &&
		 !(err = write_out(w, head, pkt_chunk_head(head, s->seq_id, clen))))
		err = write_out(w, w->zbuf, clen);
	w->buffered -= s->pending.len;
	pbuf__reset(&s->pending);
	if (release)
		pbuf__free(&s->pending);
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
		if ((err = pw_seq_flush(w, big, true)))
			return err;
		big = NULL;
	}
	return 0;
}

int pw_seq_appended(struct perfetto_writer *w, struct pw_seq *s, size_t before)
{
	int err;

	if (s->pending.err)
		return w->err = s->pending.err;
	w->buffered += s->pending.len - before;
	if (s->pending.len >= w->o.chunk_bytes && (err = pw_seq_flush(w, s, false)))
		return err;
	return w->buffered > w->o.max_buffered ? flush_largest(w) : 0;
}

struct pw_seq *pw_seq_get(struct perfetto_writer *w, const struct trace_thread *th)
{
	struct pw_seq *s, **v;
	size_t n;

	if (th->index < w->nseqs && w->seqs[th->index])
		return w->seqs[th->index];
	if (th->index >= w->nseqs) {
		n = (size_t)th->index * 2 + 16;
		if (!(v = realloc(w->seqs, n * sizeof(*v)))) {
			w->err = -ENOMEM;
			return NULL;
		}
		memset(v + w->nseqs, 0, (n - w->nseqs) * sizeof(*v));
		w->seqs = v;
		w->nseqs = n;
	}
	if (!(s = calloc(1, sizeof(*s)))) {
		w->err = -ENOMEM;
		return NULL;
	}
	s->seq_id = w->seq_ids++ + PERFETTO_META_SEQ + 1;
	s->thread_index = th->index;
	return w->seqs[th->index] = s;
}

void pw_seq_free(struct pw_seq *s)
{
	if (!s)
		return;
	pbuf__free(&s->pending);
	free(s->interned);
	free(s->below);
	free(s);
}

/* Once per process, written through at once on the sledtrace sequence: thread
 * sequences are flushed in any order, and each one's thread descriptor
 * must find its parent already in the file. */
static int describe_process(struct perfetto_writer *w, const struct trace_thread *th)
{
	uint64_t key = (uint64_t)th->process_index + 1, seen;
	size_t before = w->meta.pending.len;
	int err;

	if (u64map__get(&w->procs, key, &seen))
		return 0;
	if ((err = u64map__put(&w->procs, key, 1)))
		return w->err = err;
	pkt_process(&w->meta.pending, w->meta.seq_id, th);
	if ((err = pw_seq_appended(w, &w->meta, before)))
		return err;
	return pw_seq_flush(w, &w->meta, false);
}

/* The sequence's descriptors go out lazily with its first event, because
 * the clock snapshot wants that event's timestamp. */
struct pw_seq *pw_seq_start(struct perfetto_writer *w, const struct trace_thread *th, uint64_t ts)
{
	struct pw_seq *s = pw_seq_get(w, th);
	size_t before;

	if (!s || s->started)
		return s;
	s->started = true;
	s->first_ts = s->last_ts = ts;
	before = s->pending.len;
	pkt_seq_start(&s->pending, s->seq_id, th->index, ts);
	if (pw_seq_appended(w, s, before) || describe_process(w, th))
		return NULL;
	before = s->pending.len;
	pkt_thread(&s->pending, s->seq_id, th);
	return pw_seq_appended(w, s, before) ? NULL : s;
}

static int mark_known(struct pw_seq *s, uint32_t fid)
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

/* fid's identity, in a packet of its own ahead of its first event here;
 * its object only the first time one of its functions is. */
static int intern_identity(struct perfetto_writer *w, struct pw_seq *s, const struct pkt_func *f,
			   uint32_t fid)
{
	const struct pkt_object *o = NULL;
	size_t before = s->pending.len;

	if (f->obj >= 0 && (f->obj >= 64 || !(s->objs_interned >> f->obj & 1))) {
		o = &w->objs[f->obj];
		if (f->obj < 64)
			s->objs_interned |= (uint64_t)1 << f->obj;
	}
	pkt_identity(&s->pending, s->seq_id, fid, f, o);
	return pw_seq_appended(w, s, before);
}

static uint64_t advance(struct pw_seq *s, uint64_t ts)
{
	uint64_t delta = ts > s->last_ts ? ts - s->last_ts : 0;

	s->last_ts += delta;
	return delta;
}

/* Room for depth in s->below. */
static int below_room(struct pw_seq *s, uint32_t depth)
{
	uint32_t cap = s->below_cap ? s->below_cap : 64;
	uint64_t *v;

	if (depth <= s->below_cap)
		return 0;
	while (cap < depth)
		cap *= 2;
	if (!(v = realloc(s->below, cap * sizeof(*v))))
		return -ENOMEM;
	s->below = v;
	s->below_cap = cap;
	return 0;
}

int pw_seq_begin(struct perfetto_writer *w, struct pw_seq *s, uint32_t depth, uint32_t fid,
		 uint64_t ts)
{
	const struct pkt_func *f = &w->funcs[fid].pk;
	bool intern = !pw_seq_knows(s, fid);
	size_t before;
	int err;

	if (below_room(s, depth))
		return w->err = -ENOMEM;
	s->below[depth - 1] = 0;
	if (intern && (f->mangled || f->obj >= 0 || f->addr) &&
	    (err = intern_identity(w, s, f, fid)))
		return err;
	if (intern && mark_known(s, fid))
		return w->err = -ENOMEM;
	before = s->pending.len;
	pkt_begin(&s->pending, s->seq_id, fid, f, intern, advance(s, ts));
	return pw_seq_appended(w, s, before);
}

int pw_seq_end(struct perfetto_writer *w, struct pw_seq *s, uint32_t depth, uint64_t ts,
	       bool inferred, const struct frame_values *values)
{
	size_t before = s->pending.len;
	uint64_t below = depth <= s->below_cap ? s->below[depth - 1] : 0;

	if (depth >= 2 && depth <= s->below_cap)
		s->below[depth - 2] += below + 1;
	if (values && values->n)
		pkt_end_values(&s->pending, s->seq_id, inferred, values, advance(s, ts));
	else
		pkt_end(&s->pending, s->seq_id, inferred, below, advance(s, ts));
	return pw_seq_appended(w, s, before);
}

/* The name of state on its first use on s, else NULL (interned already). */
static const char *state_name_once(struct pw_seq *s, enum thread_state state)
{
	if (s->states_named >> state & 1)
		return NULL;
	s->states_named |= (uint8_t)(1u << state);
	return thread_state_names[state];
}

/* The state track exists only for a thread that switched, which is known
 * at its first switch: its first slice is written then, with the time of
 * the thread's first event, on the boot clock, which (unlike the
 * sequence's incremental one) may go back. */
int pw_seq_state(struct perfetto_writer *w, struct pw_seq *s, uint64_t ts, enum thread_state state)
{
	size_t before = s->pending.len;

	if (!s->states_open) {
		s->states_open = true;
		pkt_state_track(&s->pending, s->seq_id, s->thread_index);
		pkt_state_begin(&s->pending, s->seq_id, s->thread_index, THREAD_RUNNING,
				state_name_once(s, THREAD_RUNNING), s->first_ts, true);
	}
	pkt_state_end(&s->pending, s->seq_id, s->thread_index, advance(s, ts));
	pkt_state_begin(&s->pending, s->seq_id, s->thread_index, state, state_name_once(s, state),
			advance(s, ts), false);
	return pw_seq_appended(w, s, before);
}

int pw_seq_states_end(struct perfetto_writer *w, struct pw_seq *s)
{
	size_t before = s->pending.len;

	if (!s->states_open)
		return 0;
	s->states_open = false;
	pkt_state_end(&s->pending, s->seq_id, s->thread_index, 0);
	return pw_seq_appended(w, s, before);
}
