// SPDX-License-Identifier: MIT
/* perfetto_seq.c: the writer's packet sequences (perfetto_seq.h).
 * Packets are appended to their sequence's pending buffer, which is
 * already a serialized Trace message, so a flush deflates one buffer into
 * one compressed_packets packet.  A sequence's buffer goes out when it
 * holds a chunk, or, when all of them together hold too much, the largest
 * one does. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "format/perfetto/perfetto_layout.h"
#include "format/perfetto/perfetto_seq.h"

/* libdeflate's level 1: faster and smaller than zlib's level 1 here;
 * higher levels cost more CPU than they save bytes. */
#ifndef PW_DEFLATE_LEVEL
#define PW_DEFLATE_LEVEL 1
#endif

static int write_out(struct pw_seqs *q, const void *p, size_t n)
{
	int err = byte_sink__write(&q->out, p, n);

	if (err)
		return q->err = err;
	q->bytes += n;
	return 0;
}

/* Sequence 1 opens the file, uncompressed, so the file is recognisable. */
int pw_seqs_open(struct pw_seqs *q)
{
	struct pbuf *b = &q->meta.pending;

	if (!(q->zc = libdeflate_alloc_compressor(PW_DEFLATE_LEVEL)))
		return q->err = -ENOMEM;
	q->meta.seq_id = PERFETTO_META_SEQ;
	pkt_header(b);
	if (b->err)
		return q->err = b->err;
	write_out(q, b->p, b->len);
	pbuf__reset(b);
	return q->err;
}

/* libdeflate, not zlib: the same zlib stream Perfetto inflates, in about
 * a third of the CPU time (compressing was most of sledtrace's time per
 * event) and smaller. */
static int deflate_pending(struct pw_seqs *q, const struct pbuf *b, size_t *clen)
{
	size_t bound = libdeflate_zlib_compress_bound(q->zc, b->len);

	if (bound > q->zcap) {
		uint8_t *p = realloc(q->zbuf, bound);

		if (!p)
			return -ENOMEM;
		q->zbuf = p;
		q->zcap = bound;
	}
	*clen = libdeflate_zlib_compress(q->zc, b->p, b->len, q->zbuf, q->zcap);
	return *clen ? 0 : -EIO;
}

int pw_seq_flush(struct pw_seqs *q, struct pw_seq *s, bool release)
{
	uint8_t head[PKT_CHUNK_HEAD];
	size_t clen;
	int err = 0;

	if (s->pending.len && q->plain)
		err = write_out(q, s->pending.p, s->pending.len);
	else if (s->pending.len && !(err = deflate_pending(q, &s->pending, &clen)) &&
		 !(err = write_out(q, head, pkt_chunk_head(head, s->seq_id, clen))))
		err = write_out(q, q->zbuf, clen);
	q->buffered -= s->pending.len;
	pbuf__reset(&s->pending);
	if (release)
		pbuf__free(&s->pending);
	return err ? (q->err = err) : 0;
}

static int flush_largest(struct pw_seqs *q)
{
	struct pw_seq *big = NULL;
	int err;

	while (q->buffered > q->max_buffered) {
		for (size_t i = 0; i < q->nseqs; i++)
			if (q->seqs[i] && (!big || q->seqs[i]->pending.len > big->pending.len))
				big = q->seqs[i];
		if (!big || !big->pending.len)
			return 0;
		if ((err = pw_seq_flush(q, big, true)))
			return err;
		big = NULL;
	}
	return 0;
}

int pw_seq_appended(struct pw_seqs *q, struct pw_seq *s, size_t before)
{
	int err;

	if (s->pending.err)
		return q->err = s->pending.err;
	q->buffered += s->pending.len - before;
	if (s->pending.len >= q->chunk_bytes && (err = pw_seq_flush(q, s, false)))
		return err;
	return q->buffered > q->max_buffered ? flush_largest(q) : 0;
}

struct pw_seq *pw_seq_get(struct pw_seqs *q, const struct trace_thread *th)
{
	struct pw_seq *s, **v;
	size_t n;

	if (th->index < q->nseqs && q->seqs[th->index])
		return q->seqs[th->index];
	if (th->index >= q->nseqs) {
		n = (size_t)th->index * 2 + 16;
		if (!(v = realloc(q->seqs, n * sizeof(*v)))) {
			q->err = -ENOMEM;
			return NULL;
		}
		memset(v + q->nseqs, 0, (n - q->nseqs) * sizeof(*v));
		q->seqs = v;
		q->nseqs = n;
	}
	if (!(s = calloc(1, sizeof(*s)))) {
		q->err = -ENOMEM;
		return NULL;
	}
	s->seq_id = q->seq_ids++ + PERFETTO_META_SEQ + 1;
	s->thread_index = th->index;
	return q->seqs[th->index] = s;
}

static void seq_free(struct pw_seq *s)
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
static int describe_process(struct pw_seqs *q, const struct trace_thread *th)
{
	uint64_t key = (uint64_t)th->process_index + 1, seen;
	size_t before = q->meta.pending.len;
	int err;

	if (u64map__get(&q->procs, key, &seen))
		return 0;
	if ((err = u64map__put(&q->procs, key, 1)))
		return q->err = err;
	pkt_process(&q->meta.pending, q->meta.seq_id, th);
	if ((err = pw_seq_appended(q, &q->meta, before)))
		return err;
	return pw_seq_flush(q, &q->meta, false);
}

/* The sequence's descriptors go out lazily with its first event, because
 * the clock snapshot wants that event's timestamp. */
struct pw_seq *pw_seq_start(struct pw_seqs *q, const struct trace_thread *th, uint64_t ts)
{
	struct pw_seq *s = pw_seq_get(q, th);
	size_t before;

	if (!s || s->started)
		return s;
	s->started = true;
	s->first_ts = s->last_ts = ts;
	before = s->pending.len;
	pkt_seq_start(&s->pending, s->seq_id, th->index, ts);
	if (pw_seq_appended(q, s, before) || describe_process(q, th))
		return NULL;
	before = s->pending.len;
	pkt_thread(&s->pending, s->seq_id, th);
	return pw_seq_appended(q, s, before) ? NULL : s;
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
static int intern_identity(struct pw_seqs *q, struct pw_seq *s, const struct pkt_func *f,
			   const struct pkt_object *objs, uint32_t fid)
{
	const struct pkt_object *o = NULL;
	size_t before = s->pending.len;

	if (f->obj >= 0 && (f->obj >= 64 || !(s->objs_interned >> f->obj & 1))) {
		o = &objs[f->obj];
		if (f->obj < 64)
			s->objs_interned |= (uint64_t)1 << f->obj;
	}
	pkt_identity(&s->pending, s->seq_id, fid, f, o);
	return pw_seq_appended(q, s, before);
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

int pw_seq_begin(struct pw_seqs *q, struct pw_seq *s, uint32_t depth, const struct frame *fr,
		 const struct pkt_func *f, const struct pkt_object *objs)
{
	uint32_t fid = fr->fid;
	bool intern = !pw_seq_knows(s, fid);
	size_t before;
	int err;

	if (below_room(s, depth))
		return q->err = -ENOMEM;
	s->below[depth - 1] = 0;
	if (intern && (f->mangled || f->obj >= 0 || f->addr) &&
	    (err = intern_identity(q, s, f, objs, fid)))
		return err;
	if (intern && mark_known(s, fid))
		return q->err = -ENOMEM;
	before = s->pending.len;
	pkt_begin(&s->pending, s->seq_id, fid, f, intern, advance(s, fr->begin_ns),
		  fr->cause ? fr : NULL);
	return pw_seq_appended(q, s, before);
}

int pw_seq_cause(struct pw_seqs *q, struct pw_seq *s, const struct cause_point *cp, uint64_t cause)
{
	size_t before = s->pending.len;

	pkt_cause(&s->pending, s->seq_id, cp, cause, advance(s, cp->ts));
	return pw_seq_appended(q, s, before);
}

int pw_seq_end(struct pw_seqs *q, struct pw_seq *s, uint32_t depth, uint64_t ts, bool inferred,
	       const struct frame_values *values, const struct frame_costs *costs)
{
	size_t before = s->pending.len;
	uint64_t below = depth <= s->below_cap ? s->below[depth - 1] : 0;

	if (depth >= 2 && depth <= s->below_cap)
		s->below[depth - 2] += below + 1;
	if ((values && values->n) || (costs && frame_costs__any(costs)))
		pkt_end_values(&s->pending, s->seq_id, inferred, values, costs, advance(s, ts));
	else
		pkt_end(&s->pending, s->seq_id, inferred, below, advance(s, ts));
	return pw_seq_appended(q, s, before);
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
int pw_seq_state(struct pw_seqs *q, struct pw_seq *s, uint64_t ts, enum thread_state state)
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
	return pw_seq_appended(q, s, before);
}

/* The open state slice, if any, ends at the sequence's last event. */
static int states_end(struct pw_seqs *q, struct pw_seq *s)
{
	size_t before = s->pending.len;

	if (!s->states_open)
		return 0;
	s->states_open = false;
	pkt_state_end(&s->pending, s->seq_id, s->thread_index, 0);
	return pw_seq_appended(q, s, before);
}

int pw_seq_end_thread(struct pw_seqs *q, uint32_t thread_index)
{
	struct pw_seq *s = thread_index < q->nseqs ? q->seqs[thread_index] : NULL;

	if (q->err || !s)
		return q->err;
	if (s->started && !states_end(q, s))
		pw_seq_flush(q, s, true);
	seq_free(s);
	q->seqs[thread_index] = NULL;
	return q->err;
}

int pw_seqs_flush_threads(struct pw_seqs *q)
{
	for (size_t i = 0; i < q->nseqs && !q->err; i++)
		if (q->seqs[i] && !states_end(q, q->seqs[i]))
			pw_seq_flush(q, q->seqs[i], true);
	return q->err;
}

void pw_seqs_close(struct pw_seqs *q)
{
	for (size_t i = 0; i < q->nseqs; i++)
		seq_free(q->seqs[i]);
	free(q->seqs);
	pbuf__free(&q->meta.pending);
	if (q->zc)
		libdeflate_free_compressor(q->zc);
	free(q->zbuf);
	u64map__clear(&q->procs);
}
