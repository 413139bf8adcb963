// SPDX-License-Identifier: MIT
/* collector.c: see collector.h.
 *
 * Invariants per thread: the builder's stack holds open frames with
 * strictly decreasing sp from bottom to top (deeper calls sit lower on the
 * stack).  An event at stack pointer S proves every open frame with
 * sp < S has returned or been unwound; an ENTRY at S also ends the frame
 * that owned slot S (a sibling or a tail-called function now owns it).
 *
 * Uretprobe exits of tail calls come in chains: when f tail-calls g the
 * kernel reports g's return and then f's, both at the same slot.  f was
 * already closed by its TAIL sled, so its RET is expected, not unmatched:
 * each thread counts, per slot, the returns still owed to tail-closed
 * frames (the kernel delivers at most 64 of a chain; the rest are never
 * owed in practice and the count is dropped once the stack unwinds past
 * the slot). */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/collect/capture_values.h"
#include "record/collect/collector_int.h"

int collector__new(struct frame_builder *fb, struct collector **out)
{
	struct collector *c = calloc(1, sizeof(*c));

	if (!c)
		return -ENOMEM;
	c->fb = fb;
	if (idents__new(&c->ids)) {
		free(c);
		return -ENOMEM;
	}
	thread_slots__init(&c->threads, sizeof(struct cthread), NULL);
	*out = c;
	return 0;
}

void collector__free(struct collector *c)
{
	if (!c)
		return;
	thread_slots__clear(&c->threads);
	idents__free(c->ids);
	causes__free(c);
	free(c->objs);
	free(c->hit);
	free(c);
}

int collector__add_object(struct collector *c, const struct collector_object *obj)
{
	struct collector_object *o = realloc(c->objs, (c->nobjs + 1) * sizeof(*o));
	uint32_t nfids = obj->fid_base + obj->nfuncs + 1;
	uint8_t *hit;

	if (!o)
		return -ENOMEM;
	c->objs = o;
	if (nfids > c->nfids) {
		hit = realloc(c->hit, (nfids + 7) / 8);
		if (!hit)
			return -ENOMEM;
		memset(hit + (c->nfids + 7) / 8, 0, (nfids + 7) / 8 - (c->nfids + 7) / 8);
		c->hit = hit;
		c->nfids = nfids;
	}
	c->objs[c->nobjs++] = *obj;
	return 0;
}

void collector__causes(struct collector *c)
{
	c->causes = true;
}

uint64_t collector__functions_hit(const struct collector *c)
{
	return c->nhit;
}

const struct trace_stats *collector__stats(const struct collector *c)
{
	return &c->st;
}

const struct collector_names *collector__names(const struct collector *c)
{
	return &c->names;
}

static void read_proc_file(const char *path, char *buf, size_t len, bool nul_to_space)
{
	FILE *f = fopen(path, "re");
	size_t n = 0;

	buf[0] = 0;
	if (!f)
		return;
	n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = 0;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == 0))
		buf[--n] = 0;
	for (size_t i = 0; nul_to_space && i < n; i++)
		if (buf[i] == 0)
			buf[i] = ' ';
}

/* The kernel's word first (idents.h: every thread and process the trace
 * sees is named by the BPF side when it is created, renamed or exec'd, and
 * -p targets are seeded at attach).  Only one the kernel never named (its
 * identity record was lost) is read from /proc while it still exists,
 * off the common path; else "?".  Both are counted. */
static const char *name_of(struct collector *c, const char *kernel, const char *fmt, uint32_t tgid,
			   uint32_t tid, char *buf, size_t len, bool args)
{
	char path[64];

	if (kernel)
		return kernel;
	snprintf(path, sizeof(path), fmt, tgid, tid);
	read_proc_file(path, buf, len, args);
	if (buf[0]) {
		c->names.from_proc++;
		return buf;
	}
	c->names.unknown++;
	return "?";
}

/* Read now, while it surely exists: a thread of a -p target may end
 * before its first event is read. */
static int seed_thread(struct collector *c, uint32_t tgid, uint32_t tid)
{
	char path[64], comm[64], cmdline[1024];

	snprintf(path, sizeof(path), "/proc/%u/task/%u/comm", tgid, tid);
	read_proc_file(path, comm, sizeof(comm), false);
	if (!comm[0])
		return 0;
	snprintf(path, sizeof(path), "/proc/%u/cmdline", tgid);
	read_proc_file(path, cmdline, sizeof(cmdline), true);
	return idents__seed(c->ids, tgid, tid, comm, cmdline[0] ? cmdline : NULL);
}

int collector__seed(struct collector *c, uint32_t tgid)
{
	char path[64];
	struct dirent *de;
	DIR *d;
	int err = seed_thread(c, tgid, tgid);

	snprintf(path, sizeof(path), "/proc/%u/task", tgid);
	if (err || !(d = opendir(path)))
		return err;
	while (!err && (de = readdir(d)))
		if (de->d_name[0] != '.' && (uint32_t)atoi(de->d_name) != tgid)
			err = seed_thread(c, tgid, (uint32_t)atoi(de->d_name));
	closedir(d);
	return err;
}

struct cthread *collector__find(struct collector *c, uint32_t tgid, uint32_t tid)
{
	struct fb_thread *fbt = frame_builder__find(c->fb, tgid, tid);

	return fbt ? thread_slots__peek(&c->threads, frame_builder__info(fbt)->index) : NULL;
}

int collector__thread_for(struct collector *c, uint32_t tgid, uint32_t tid, struct cthread **out)
{
	char tbuf[64], pbuf[64], cbuf[1024];
	const char *tname, *pname, *cmdline;
	struct fb_thread *fbt;
	int err;

	if ((*out = collector__find(c, tgid, tid)))
		return 0;
	tname = name_of(c, idents__thread_name(c->ids, tgid, tid), "/proc/%u/task/%u/comm", tgid,
			tid, tbuf, sizeof(tbuf), false);
	pname = idents__process_name(c->ids, tgid);
	if (!pname)
		pname = idents__thread_name(c->ids, tgid, tgid);
	pname = name_of(c, pname, "/proc/%u/comm", tgid, 0, pbuf, sizeof(pbuf), false);
	cmdline = name_of(c, idents__cmdline(c->ids, tgid), "/proc/%u/cmdline", tgid, 0, cbuf,
			  sizeof(cbuf), true);
	err = frame_builder__thread(c->fb, tgid, tid, tname, pname, cmdline, &fbt);
	if (err)
		return err;
	if (!(*out = thread_slots__get(&c->threads, frame_builder__info(fbt))))
		return -ENOMEM;
	(*out)->fbt = fbt;
	causes__met(c, *out);
	return 0;
}

static bool same_stack(uint64_t a, uint64_t b)
{
	return (a > b ? a - b : b - a) < SAME_STACK_SPAN;
}

/* Closes open frames whose slot lies below sp (or at it, when inclusive). */
static int close_below(struct collector *c, struct cthread *t, uint64_t sp, uint64_t ts,
		       bool inclusive)
{
	const struct frame *top;

	while ((top = frame_builder__top(t->fbt)) && same_stack(top->sp, sp) &&
	       (top->sp < sp || (inclusive && top->sp == sp))) {
		int err = frame_builder__leave(c->fb, t->fbt, ts, FRAME_INFERRED);

		if (err)
			return err; /* the builder counts inferred exits */
	}
	return 0;
}

static void remember_tail(struct cthread *t, uint64_t sp)
{
	for (unsigned i = 0; i < t->npend; i++)
		if (t->pend[i].sp == sp) {
			t->pend[i].owed++;
			return;
		}
	if (t->npend == TAIL_PENDING) {
		memmove(t->pend, t->pend + 1, sizeof(t->pend[0]) * (TAIL_PENDING - 1));
		t->npend--;
	}
	t->pend[t->npend].sp = sp;
	t->pend[t->npend].owed = 1;
	t->npend++;
}

static bool consume_tail(struct cthread *t, uint64_t sp)
{
	for (unsigned i = 0; i < t->npend; i++)
		if (t->pend[i].sp == sp && t->pend[i].owed) {
			t->pend[i].owed--;
			return true;
		}
	return false;
}

/* A chain's returns arrive while execution is still at or below its slot;
 * an entry above a remembered slot means that chain is over. */
static void forget_tails_below(struct cthread *t, uint64_t sp)
{
	unsigned j = 0;

	for (unsigned i = 0; i < t->npend; i++)
		if (t->pend[i].sp >= sp || !same_stack(t->pend[i].sp, sp))
			t->pend[j++] = t->pend[i];
	t->npend = j;
}

static int handle_entry(struct collector *c, struct cthread *t, uint32_t fid,
			const struct sled_call *e)
{
	int err = close_below(c, t, e->slot, e->h.ts, true);

	if (err)
		return err;
	if (t->npend)
		forget_tails_below(t, e->slot);
	if (!(c->hit[fid / 8] & (1u << (fid % 8)))) {
		c->hit[fid / 8] |= (uint8_t)(1u << (fid % 8));
		c->nhit++;
	}
	return frame_builder__enter(c->fb, t->fbt, fid, e->h.ts, e->slot);
}

/* e->slot: the return-address slot the exiting frame was entered with. */
/* cap: a RETVAL record's return value for the frame it closes, or NULL. */
static int handle_exit(struct collector *c, struct cthread *t, uint32_t fid,
		       const struct sled_call *e, unsigned kind, const struct capture_fn *cap,
		       size_t size)
{
	uint64_t slot = e->slot;
	const struct frame *top;
	int err = close_below(c, t, slot, e->h.ts, false);

	if (err)
		return err;
	top = frame_builder__top(t->fbt);
	if (top && top->sp == slot) {
		if (kind == SLED_KIND_TAIL && top->fid == fid)
			remember_tail(t, slot);
		if (cap && top->fid == fid &&
		    (err = capture_values__attach(cap, (const void *)e, size, true, t->fbt)))
			return err;
		return frame_builder__leave(c->fb, t->fbt, e->h.ts,
					    kind == SLED_KIND_TAIL ? FRAME_TAIL : FRAME_RETURNED);
	}
	if (kind == SLED_KIND_RET && consume_tail(t, slot))
		return 0;
	c->st.unmatched_exits++;
	return 0;
}

/* Retires (tgid, tid) if it is still open: it is gone, or it exec'd into a
 * new program that gets a thread (track, names) of its own. */
static int retire(struct collector *c, uint32_t tgid, uint32_t tid, uint64_t ts)
{
	struct cthread *t = collector__find(c, tgid, tid);
	struct fb_thread *fbt;

	if (!t)
		return 0;
	fbt = t->fbt;
	thread_slots__put(&c->threads, frame_builder__info(fbt));
	return frame_builder__end_thread(c->fb, fbt, ts);
}

/* A forked child runs on in the frames its parent's thread had open at the
 * fork: they begin again in the child, at the fork, so that the child's
 * returns from them match.  Frames below the parent's stack pointer have
 * returned (their exits not seen: inferred or uretprobe-less), so they
 * end in the parent now and the child does not inherit them. */
static int fork_child(struct collector *c, const struct sled_fork *e)
{
	uint32_t ptgid = e->parent_tgid, ptid = e->parent_tid, depth;
	struct cthread *parent = collector__find(c, ptgid, ptid), *child;
	int err = idents__inherit(c->ids, e->h.tgid, ptgid);

	if (!err && parent && e->parent_sp)
		err = close_below(c, parent, e->parent_sp, e->h.ts, false);
	if (err)
		return err;
	if (!parent || !(depth = frame_builder__depth(parent->fbt)))
		return 0;
	err = retire(c, e->h.tgid, e->h.tid, e->h.ts);
	if (!err)
		err = collector__thread_for(c, e->h.tgid, e->h.tid, &child);
	if (err)
		return err;
	parent = collector__find(c, ptgid, ptid); /* thread_for may move threads */
	for (uint32_t i = 0; !err && parent && i < depth; i++) {
		const struct frame *f = frame_builder__frame(parent->fbt, i);

		err = frame_builder__enter(c->fb, child->fbt, f->fid, e->h.ts, f->sp);
	}
	/* what the child does next, it does because its parent forked there */
	if (!err && parent && c->causes)
		err = causes__fork(c, parent, child, e->h.ts);
	return err;
}

/* The thread is gone: what it left open ends with it, and nothing of its
 * stack may pair with the frames of a later thread that reuses the tid. */
static int thread_exit(struct collector *c, const struct sled_thread_exit *e)
{
	int err = retire(c, e->h.tgid, e->h.tid, e->h.ts);

	idents__gone(c->ids, e->h.tgid, e->h.tid, e->process_ended);
	causes__gone(c, e->h.tgid, e->h.tid);
	return err;
}

/* exec replaced the thread's program: its frames are gone, and what runs
 * next is named anew. */
static int exec_thread(struct collector *c, const struct sled_head *h)
{
	struct cthread *t = collector__find(c, h->tgid, h->tid);
	int err = t ? causes__exec(c, t) : 0;

	return err ? err : retire(c, h->tgid, h->tid, h->ts);
}

static int call(struct collector *c, const struct sled_call *e)
{
	unsigned kind = SLED_TAG_KIND(e->h.tag), obj = SLED_COOKIE_OBJ(e->h.tag);
	uint32_t fn = SLED_COOKIE_FN(e->h.tag), fid;
	struct cthread *t;
	int err;

	if (obj >= c->nobjs || fn == 0 || fn > c->objs[obj].nfuncs)
		return 0; /* not a cookie of ours: nothing to rebuild */
	fid = c->objs[obj].fid_base + fn;
	err = collector__thread_for(c, e->h.tgid, e->h.tid, &t);
	if (!err)
		err = frame_builder__resume(c->fb, t->fbt, e->h.ts);
	if (err)
		return err;
	if (kind == SLED_KIND_ENTRY)
		return handle_entry(c, t, fid, e);
	return handle_exit(c, t, fid, e, kind, NULL, 0);
}

/* A call of a --capture function: its entry with the arguments, or its
 * return with the value returned (via: the call kind it stands for). */
static int captured(struct collector *c, const struct sled_capture *e, size_t size)
{
	unsigned kind = SLED_TAG_KIND(e->h.tag), obj = SLED_COOKIE_OBJ(e->h.tag);
	uint32_t fn = SLED_COOKIE_FN(e->h.tag), fid;
	const struct sled_call *call = (const struct sled_call *)e;
	const struct capture_fn *cap;
	struct cthread *t;
	int err;

	if (obj >= c->nobjs || fn == 0 || fn > c->objs[obj].nfuncs ||
	    (kind == SLED_KIND_ARGS ? e->via != SLED_KIND_ENTRY
				    : e->via != SLED_KIND_EXIT && e->via != SLED_KIND_RET))
		return 0;
	fid = c->objs[obj].fid_base + fn;
	cap = c->objs[obj].capture ? c->objs[obj].capture[fn] : NULL;
	if ((err = collector__thread_for(c, e->h.tgid, e->h.tid, &t)) ||
	    (err = frame_builder__resume(c->fb, t->fbt, e->h.ts)))
		return err;
	if (kind == SLED_KIND_RETVAL)
		return handle_exit(c, t, fid, call, e->via, cap, size);
	if (cap && (err = causes__receive(c, t, e, cap)))
		return err;
	if ((err = handle_entry(c, t, fid, call)) || !cap)
		return err;
	if ((err = causes__send(c, t, e, cap)))
		return err;
	return capture_values__attach(cap, e, size, false, t->fbt);
}

/* A thread the trace has not met yet (no traced call) has no frames to
 * charge: its switches are skipped, and its first call finds it running. */
static int switched(struct collector *c, const struct sled_switch *e)
{
	struct fb_thread *t = frame_builder__find(c->fb, e->h.tgid, e->h.tid);
	int err;

	if (!t || e->state >= SLED_STATE_MAX)
		return 0;
	c->st.switches++;
	if ((err = costs__switched(c, t, (enum thread_state)e->state)))
		return err;
	/* Leaving a CPU it was never seen to take: the kernel missed its
	 * return (docs/DESIGN.md, "On-CPU time"), which this proves and
	 * can only time here, so the time since counts as off the CPU. */
	if ((enum thread_state)e->state != THREAD_RUNNING &&
	    (err = frame_builder__resume(c->fb, t, e->h.ts)))
		return err;
	return frame_builder__sched(c->fb, t, e->h.ts, (enum thread_state)e->state);
}

int collector__held_back(struct collector *c, const struct sled_call *entries, uint32_t n,
			 uint64_t last_ts)
{
	struct cthread *t;
	int err = 0;

	for (uint32_t i = 0; i < n && !err; i++)
		err = call(c, &entries[i]);
	if (err || !n || !(t = collector__find(c, entries[0].h.tgid, entries[0].h.tid)))
		return err;
	frame_builder__seen(t->fbt, last_ts);
	return 0;
}

/* The smallest record of each kind: a shorter one is not read. */
static const uint32_t record_size[SLED_KIND_MAX] = {
	[SLED_KIND_ENTRY] = sizeof(struct sled_call),
	[SLED_KIND_EXIT] = sizeof(struct sled_call),
	[SLED_KIND_TAIL] = sizeof(struct sled_call),
	[SLED_KIND_RET] = sizeof(struct sled_call),
	[SLED_KIND_THREAD_EXIT] = sizeof(struct sled_thread_exit),
	[SLED_KIND_MAPPED] = sizeof(struct sled_mapped),
	[SLED_KIND_FORK] = sizeof(struct sled_fork),
	[SLED_KIND_EXEC] = sizeof(struct sled_head),
	[SLED_KIND_IDENT] = sizeof(struct sled_ident),
	[SLED_KIND_SWITCH] = sizeof(struct sled_switch),
	[SLED_KIND_FORK_HOLD] = sizeof(struct sled_mapped),
	[SLED_KIND_ARGS] = SLED_CAPTURE_SMALL,
	[SLED_KIND_RETVAL] = SLED_CAPTURE_SMALL,
	[SLED_KIND_CAUSE] = sizeof(struct sled_cause),
	[SLED_KIND_COST] = sizeof(struct sled_cost),
};

unsigned collector__kind(const void *rec, size_t size)
{
	unsigned kind;

	if (size < sizeof(struct sled_head))
		return SLED_KIND_MAX;
	kind = SLED_TAG_KIND(((const struct sled_head *)rec)->tag);
	return kind < SLED_KIND_MAX && size >= record_size[kind] ? kind : SLED_KIND_MAX;
}

int collector__event(struct collector *c, const void *rec, size_t size)
{
	/* Process bookkeeping is not counted: events count calls and thread
	 * exits, as the drop counter does. */
	switch (collector__kind(rec, size)) {
	case SLED_KIND_ENTRY:
	case SLED_KIND_EXIT:
	case SLED_KIND_TAIL:
	case SLED_KIND_RET:
		c->st.events++;
		return call(c, rec);
	case SLED_KIND_ARGS:
	case SLED_KIND_RETVAL:
		c->st.events++;
		return captured(c, rec, size);
	case SLED_KIND_THREAD_EXIT:
		c->st.events++;
		return thread_exit(c, rec);
	case SLED_KIND_FORK:
		return fork_child(c, rec);
	case SLED_KIND_EXEC:
		return exec_thread(c, rec);
	case SLED_KIND_IDENT:
		return idents__update(c->ids, rec);
	case SLED_KIND_SWITCH:
		return switched(c, rec);
	case SLED_KIND_CAUSE:
		return causes__record(c, rec);
	case SLED_KIND_COST:
		return costs__record(c, rec);
	default:
		return 0; /* MAPPED is the hold's (mappings.h); unknown kinds are skipped */
	}
}
