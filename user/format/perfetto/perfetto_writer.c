// SPDX-License-Identifier: MIT
/* perfetto_writer.c: streams frames as a Perfetto trace (layout in
 * perfetto_layout.h and docs/FORMATS.md).  This file is the frame sink:
 * it keeps the functions and objects the trace names, counts the calls it
 * does not write as slices, and ends the trace; perfetto_seq.c puts each
 * thread's packets on its sequence and writes them out.  Calls go down
 * only: writer -> seq -> packets. */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "format/perfetto/perfetto_packets.h"
#include "format/perfetto/perfetto_seq.h"
#include "format/perfetto/perfetto_writer.h"
#include "util/u64map.h"

struct pw_func {
	struct pkt_func pk;
	/* Set until file and line are asked for (trace_function.locate). */
	int (*locate)(void *ctx, uint64_t key, const char **file, uint32_t *line);
	void *locate_ctx;
	uint64_t locate_key;
};

struct perfetto_writer {
	struct pw_seqs q; /* the sequences, the output and the sticky error */
	uint32_t max_depth;
	struct pw_func *funcs; /* by fid */
	size_t nfuncs;
	struct pkt_object *objs;
	size_t nobjs;
	struct u64map elided_idx; /* thread index << 32 | fid -> index into elided */
	struct pkt_elided *elided;
	size_t nelided;
	uint64_t max_ts, capped;
	struct trace_stats stats;
	bool finished;
};

/* Index of fn's object in objs (few: linear search), -1 when unknown. */
static int32_t object_of(struct perfetto_writer *w, const struct trace_function *fn)
{
	const char *bid = fn->build_id ? fn->build_id : "";
	struct pkt_object *v;

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

static int grow_funcs(struct perfetto_writer *w, uint32_t id)
{
	size_t n = (size_t)id * 2 + 16;
	struct pw_func *f = realloc(w->funcs, n * sizeof(*f));

	if (!f)
		return w->q.err = -ENOMEM;
	memset(f + w->nfuncs, 0, (n - w->nfuncs) * sizeof(*f));
	for (size_t i = w->nfuncs; i < n; i++)
		f[i].pk.obj = -1;
	w->funcs = f;
	w->nfuncs = n;
	return 0;
}

static int pw_function(void *ctx, const struct trace_function *fn)
{
	struct perfetto_writer *w = ctx;
	struct pkt_func *f;
	bool mangled = fn->mangled && *fn->mangled;

	if (!fn->id || !fn->name)
		return -EINVAL;
	if (fn->id >= w->nfuncs && grow_funcs(w, fn->id))
		return w->q.err;
	f = &w->funcs[fn->id].pk;
	if (f->name)
		return 0;
	f->name = strdup(fn->name);
	f->file = fn->file ? strdup(fn->file) : NULL;
	f->mangled = mangled ? strdup(fn->mangled) : NULL;
	if (!f->name || (fn->file && !f->file) || (mangled && !f->mangled) ||
	    (f->obj = object_of(w, fn)) == -ENOMEM)
		return w->q.err = -ENOMEM;
	f->addr = fn->addr;
	f->name_len = (uint32_t)strlen(f->name);
	f->file_len = f->file ? (uint32_t)strlen(f->file) : 0;
	f->line = fn->line;
	if (!fn->file && fn->locate) {
		w->funcs[fn->id].locate = fn->locate;
		w->funcs[fn->id].locate_ctx = fn->locate_ctx;
		w->funcs[fn->id].locate_key = fn->locate_key;
	}
	return 0;
}

/* A function's file and line are asked for when a sequence first uses it:
 * the producer's lookup is too costly to make for every function known. */
static int locate(struct perfetto_writer *w, struct pw_func *f)
{
	const char *file = NULL;
	uint32_t line = 0;

	if (!f->locate)
		return 0;
	if (!f->locate(f->locate_ctx, f->locate_key, &file, &line) && file) {
		if (!(f->pk.file = strdup(file)))
			return w->q.err = -ENOMEM;
		f->pk.file_len = (uint32_t)strlen(f->pk.file);
		f->pk.line = line;
	}
	f->locate = NULL;
	return 0;
}

static int pw_thread(void *ctx, const struct trace_thread *th)
{
	struct perfetto_writer *w = ctx;

	pw_seq_get(&w->q, th);
	return w->q.err;
}

static int pw_enter(void *ctx, const struct trace_thread *th, const struct frame *stack,
		    uint32_t depth)
{
	struct perfetto_writer *w = ctx;
	const struct frame *f = &stack[depth - 1];
	struct pw_seq *s;

	if (w->q.err || depth > w->max_depth)
		return w->q.err;
	if (f->fid >= w->nfuncs || !w->funcs[f->fid].pk.name)
		return -EINVAL;
	if (f->begin_ns > w->max_ts)
		w->max_ts = f->begin_ns;
	if (!(s = pw_seq_ready(&w->q, th, f->begin_ns)))
		return w->q.err;
	if (!pw_seq_knows(s, f->fid) && locate(w, &w->funcs[f->fid]))
		return w->q.err;
	return pw_seq_begin(&w->q, s, depth, f, &w->funcs[f->fid].pk, w->objs);
}

static int pw_cause(void *ctx, const struct trace_thread *th, const struct frame *stack,
		    uint32_t depth, const struct cause_point *cp)
{
	struct perfetto_writer *w = ctx;
	struct pw_seq *s;

	if (w->q.err)
		return w->q.err;
	if (cp->ts > w->max_ts)
		w->max_ts = cp->ts;
	if (!(s = pw_seq_ready(&w->q, th, cp->ts)))
		return w->q.err;
	return pw_seq_cause(&w->q, s, cp, stack[depth - 1].id);
}

static int add_elided(struct perfetto_writer *w, const struct trace_thread *th, uint32_t fid,
		      uint64_t calls, uint64_t total_ns)
{
	uint64_t key = ((uint64_t)th->index << 32) | fid, idx;
	struct pkt_elided *e;

	if (!u64map__get(&w->elided_idx, key, &idx)) {
		e = realloc(w->elided, (w->nelided + 1) * sizeof(*e));
		if (!e)
			return w->q.err = -ENOMEM;
		w->elided = e;
		idx = w->nelided;
		if (u64map__put(&w->elided_idx, key, idx))
			return w->q.err = -ENOMEM;
		w->elided[w->nelided++] = (struct pkt_elided){
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

	if (w->q.err)
		return w->q.err;
	if (end_ns > w->max_ts)
		w->max_ts = end_ns;
	if (depth > w->max_depth) {
		w->capped++;
		return add_elided(w, th, f->fid, 1,
				  end_ns > f->begin_ns ? end_ns - f->begin_ns : 0);
	}
	if (!(s = pw_seq_ready(&w->q, th, end_ns)))
		return w->q.err;
	return pw_seq_end(&w->q, s, depth, end_ns, how == FRAME_INFERRED, f->values, f->costs);
}

static int pw_sched(void *ctx, const struct trace_thread *th, uint64_t ts, enum thread_state state)
{
	struct perfetto_writer *w = ctx;
	struct pw_seq *s;

	if (w->q.err)
		return w->q.err;
	if ((unsigned)state >= THREAD_NSTATES)
		return -EINVAL;
	if (ts > w->max_ts)
		w->max_ts = ts;
	if (!(s = pw_seq_ready(&w->q, th, ts)))
		return w->q.err;
	return pw_seq_state(&w->q, s, ts, state);
}

static int pw_elided(void *ctx, const struct trace_thread *th, uint32_t fid, uint64_t calls,
		     uint64_t total_ns)
{
	struct perfetto_writer *w = ctx;

	return w->q.err ? w->q.err : add_elided(w, th, fid, calls, total_ns);
}

/* The thread is over: its state slice ends at its last event, its last
 * chunk goes out and its buffers go. */
static int pw_thread_end(void *ctx, const struct trace_thread *th)
{
	struct perfetto_writer *w = ctx;

	return pw_seq_end_thread(&w->q, th->index);
}

static int pw_stats(void *ctx, const struct trace_stats *st)
{
	struct perfetto_writer *w = ctx;

	w->stats = *st;
	return w->q.err;
}

static int pw_gap(void *ctx, const struct trace_gap *g)
{
	struct perfetto_writer *w = ctx;
	size_t before = w->q.meta.pending.len;

	if (w->q.err)
		return w->q.err;
	pkt_gap(&w->q.meta.pending, w->max_ts, g);
	return pw_seq_appended(&w->q, &w->q.meta, before);
}

static int write_elided(struct perfetto_writer *w, const struct pkt_elided *e)
{
	struct pw_func *f = &w->funcs[e->fid];
	size_t before = w->q.meta.pending.len;

	if (locate(w, f))
		return w->q.err;
	pkt_elided(&w->q.meta.pending, w->max_ts, e, &f->pk,
		   f->pk.obj >= 0 ? &w->objs[f->pk.obj] : NULL);
	return pw_seq_appended(&w->q, &w->q.meta, before);
}

/* The elided records and the stats go last, so a reader knows a sledtrace
 * file without stats is truncated. */
static int pw_finish(void *ctx)
{
	struct perfetto_writer *w = ctx;
	struct trace_stats st = w->stats;
	size_t before;

	if (w->finished || w->q.err)
		return w->q.err ? w->q.err : -EALREADY;
	w->finished = true;
	pw_seqs_flush_threads(&w->q);
	for (size_t i = 0; i < w->nelided && !w->q.err; i++)
		if (w->elided[i].fid < w->nfuncs && w->funcs[w->elided[i].fid].pk.name)
			write_elided(w, &w->elided[i]);
	if (w->q.err)
		return w->q.err;
	st.depth_capped += w->capped;
	before = w->q.meta.pending.len;
	pkt_stats(&w->q.meta.pending, w->max_ts, &st);
	if (!pw_seq_appended(&w->q, &w->q.meta, before))
		pw_seq_flush(&w->q, &w->q.meta, true);
	return w->q.err;
}

static const struct frame_sink_ops pw_ops = {
	.function = pw_function,
	.thread = pw_thread,
	.enter = pw_enter,
	.cause = pw_cause,
	.leave = pw_leave,
	.elided = pw_elided,
	.stats = pw_stats,
	.gap = pw_gap,
	.finish = pw_finish,
	.thread_end = pw_thread_end,
	.sched = pw_sched,
};

struct frame_sink perfetto_writer__sink(struct perfetto_writer *w)
{
	return (struct frame_sink){ .ops = &pw_ops, .ctx = w };
}

uint64_t perfetto_writer__bytes(const struct perfetto_writer *w)
{
	return w->q.bytes;
}

int perfetto_writer__new(struct byte_sink out, const struct perfetto_writer_opts *opts,
			 struct perfetto_writer **wp)
{
	struct perfetto_writer_opts o = opts ? *opts : (struct perfetto_writer_opts){ 0 };
	struct perfetto_writer *w = calloc(1, sizeof(*w));
	int err;

	if (!w)
		return -ENOMEM;
	w->q.out = out;
	w->q.chunk_bytes = o.chunk_bytes ? o.chunk_bytes : 64 * 1024;
	w->q.max_buffered = o.max_buffered ? o.max_buffered : 4 * 1024 * 1024;
	w->q.plain = o.plain;
	w->max_depth = o.max_depth ? o.max_depth : PERFETTO_MAX_DEPTH;
	if ((err = pw_seqs_open(&w->q))) {
		perfetto_writer__free(w);
		return err;
	}
	*wp = w;
	return 0;
}

void perfetto_writer__free(struct perfetto_writer *w)
{
	if (!w)
		return;
	pw_seqs_close(&w->q);
	for (size_t i = 0; i < w->nfuncs; i++) {
		free(w->funcs[i].pk.name);
		free(w->funcs[i].pk.file);
		free(w->funcs[i].pk.mangled);
	}
	for (size_t i = 0; i < w->nobjs; i++) {
		free(w->objs[i].path);
		free(w->objs[i].build_id);
	}
	free(w->objs);
	free(w->funcs);
	free(w->elided);
	u64map__clear(&w->elided_idx);
	free(w);
}
