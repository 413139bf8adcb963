// SPDX-License-Identifier: MIT
/* test_perfetto_states.c: thread states through a Perfetto trace.  One
 * frame stream with scheduler switches goes through a frame_builder into a
 * logging sink (what the live recording computes) and into the writer; the
 * file read back must give, thread by thread and in order, the same frames
 * with the same on-CPU time (frame.cpu_ns) and the same switches - not one
 * more (the state track's first slice is no switch).  The stream has a
 * thread whose first event is a switch, one that never switches (no state
 * track: on-CPU equals wall time), switches inside calls deeper than the
 * writer writes, a switch older than the thread's last event, a tid reused
 * by a second thread, and a thread that ends asleep inside its calls;
 * and the same behind record's --min-duration filter. */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "format/perfetto/perfetto_reader.h"
#include "format/perfetto/perfetto_writer.h"
#include "model/frame_filter.h"
#include "model/frames.h"

#define MAXREC 8192
#define DEEP (PERFETTO_MAX_DEPTH + 8)

/* One leave or switch as a sink saw it. */
struct rec {
	char kind;     /* 'L' leave, 'S' switch */
	char who[32];  /* tid/name: a thread across a reader's renumbering */
	char what[16]; /* the function's name (ids are the reader's own) */
	uint32_t state, depth;
	uint64_t begin, end, cpu; /* a switch: end is its time */
};

struct log {
	char *names[16]; /* by function id */
	struct rec r[MAXREC];
	size_t n;
	uint64_t switches; /* the stats' count */
	bool drop_deep;	   /* like the writer: leaves deeper than it writes are not kept */
};

static struct rec *add(struct log *l, char kind, const struct trace_thread *th)
{
	struct rec *r;

	assert_true(l->n < MAXREC);
	r = &l->r[l->n++];
	memset(r, 0, sizeof(*r));
	r->kind = kind;
	snprintf(r->who, sizeof(r->who), "%u/%s", th->tid, th->name);
	return r;
}

static int l_leave(void *ctx, const struct trace_thread *th, const struct frame *st, uint32_t d,
		   uint64_t end, enum frame_end how)
{
	struct log *l = ctx;
	struct rec *r;

	(void)how;
	if (l->drop_deep && d > PERFETTO_MAX_DEPTH)
		return 0;
	r = add(l, 'L', th);
	assert_true(st[d - 1].fid < 16 && l->names[st[d - 1].fid]);
	snprintf(r->what, sizeof(r->what), "%s", l->names[st[d - 1].fid]);
	r->depth = d;
	r->begin = st[d - 1].begin_ns;
	r->end = end;
	r->cpu = st[d - 1].cpu_ns;
	return 0;
}

/* The filter passes enters on, and wants a sink to take them. */
static int l_enter(void *ctx, const struct trace_thread *th, const struct frame *st, uint32_t d)
{
	(void)ctx;
	(void)th;
	(void)st;
	(void)d;
	return 0;
}

static int l_sched(void *ctx, const struct trace_thread *th, uint64_t ts, enum thread_state state)
{
	struct rec *r = add(ctx, 'S', th);

	r->end = ts;
	r->state = (uint32_t)state;
	return 0;
}

static int l_function(void *ctx, const struct trace_function *fn)
{
	struct log *l = ctx;

	assert_true(fn->id < 16 && !l->names[fn->id]);
	l->names[fn->id] = strdup(fn->name);
	return 0;
}

static int l_stats(void *ctx, const struct trace_stats *st)
{
	((struct log *)ctx)->switches = st->switches;
	return 0;
}

static const struct frame_sink_ops log_ops = {
	.function = l_function,
	.enter = l_enter,
	.leave = l_leave,
	.sched = l_sched,
	.stats = l_stats,
};

#define T0 5000000000ULL

static void call(struct frame_builder *fb, struct fb_thread *t, uint32_t fid, uint64_t ts)
{
	assert_int_equal(frame_builder__enter(fb, t, fid, T0 + ts, 0), 0);
}

static void ret(struct frame_builder *fb, struct fb_thread *t, uint64_t ts)
{
	assert_int_equal(frame_builder__leave(fb, t, T0 + ts, FRAME_RETURNED), 0);
}

static void sw(struct frame_builder *fb, struct fb_thread *t, enum thread_state s, uint64_t ts,
	       uint64_t *n)
{
	assert_int_equal(frame_builder__sched(fb, t, T0 + ts, s), 0);
	++*n;
}

/* The stream; the numbers in the checks below are worked out from it. */
static void generate(const struct frame_sink *sink)
{
	static const char *const names[] = { NULL, "main", "work", "nap", "rec" };
	struct frame_builder *fb = frame_builder__new(sink);
	struct trace_stats st = { 0 };
	struct fb_thread *a, *b, *c, *d, *e;

	assert_non_null(fb);
	for (uint32_t id = 1; id <= 4; id++) {
		struct trace_function fn = { .id = id, .name = names[id] };

		assert_int_equal(frame_builder__function(fb, &fn), 0);
	}
	assert_int_equal(frame_builder__thread(fb, 10, 11, "a", "p", NULL, &a), 0);
	assert_int_equal(frame_builder__thread(fb, 10, 12, "b", "p", NULL, &b), 0);
	assert_int_equal(frame_builder__thread(fb, 10, 13, "c", "p", NULL, &c), 0);
	assert_int_equal(frame_builder__thread(fb, 10, 14, "d", "p", NULL, &d), 0);
	/* a: main 1000..5000 { nap 1100..4300, asleep 1200..4200 } */
	call(fb, a, 1, 1000);
	call(fb, a, 3, 1100);
	sw(fb, a, THREAD_SLEEPING, 1200, &st.switches);
	/* b's first event is a switch: it waits for a CPU, then runs work */
	sw(fb, b, THREAD_RUNNABLE, 1250, &st.switches);
	sw(fb, b, THREAD_RUNNING, 1300, &st.switches);
	call(fb, b, 2, 1400);
	call(fb, c, 2, 1500); /* c never switches */
	sw(fb, a, THREAD_RUNNING, 4200, &st.switches);
	ret(fb, a, 4300);
	ret(fb, c, 4400);
	ret(fb, a, 5000);
	/* b: preempted twice inside work, once by a switch older than its
	 * last event (taken as of that event), and a repeated state */
	call(fb, b, 3, 5100);
	sw(fb, b, THREAD_RUNNABLE, 5050, &st.switches);
	sw(fb, b, THREAD_RUNNING, 5600, &st.switches);
	sw(fb, b, THREAD_RUNNING, 5700, &st.switches);
	ret(fb, b, 5900);
	sw(fb, b, THREAD_BLOCKED, 6000, &st.switches);
	sw(fb, b, THREAD_RUNNING, 6500, &st.switches);
	ret(fb, b, 7000);
	/* d: switches inside calls deeper than the writer writes */
	for (uint64_t i = 0; i < DEEP; i++)
		call(fb, d, 4, 10000 + i * 10);
	sw(fb, d, THREAD_STOPPED, 20000, &st.switches);
	sw(fb, d, THREAD_RUNNING, 21000, &st.switches);
	for (uint64_t i = 0; i < DEEP; i++)
		ret(fb, d, 22000 + i * 10);
	/* d ends; its tid comes back as e, which ends asleep in its calls */
	assert_int_equal(frame_builder__end_thread(fb, d, T0 + 30000), 0);
	assert_int_equal(frame_builder__thread(fb, 10, 14, "e", "p", NULL, &e), 0);
	call(fb, e, 1, 31000);
	call(fb, e, 3, 31500);
	sw(fb, e, THREAD_SLEEPING, 32000, &st.switches);
	assert_int_equal(frame_builder__end_thread(fb, e, T0 + 40000), 0);
	/* many short sleeps of a: chunks and interning across them */
	call(fb, a, 2, 50000);
	for (uint64_t i = 0; i < 500; i++) {
		call(fb, a, 3, 50100 + i * 100);
		sw(fb, a, i % 2 ? THREAD_SLEEPING : THREAD_RUNNABLE, 50130 + i * 100, &st.switches);
		sw(fb, a, THREAD_RUNNING, 50170 + i * 100, &st.switches);
		ret(fb, a, 50190 + i * 100);
	}
	ret(fb, a, 101000);
	assert_int_equal(frame_builder__finish(fb, &st), 0);
	frame_builder__free(fb);
}

/* The stream into down, through a --min-duration filter when min_ns. */
static void play(const struct frame_sink *down, uint64_t min_ns)
{
	struct frame_filter_opts fo = { .min_duration_ns = min_ns };
	struct frame_filter *ff;
	struct frame_sink up;

	if (!min_ns) {
		generate(down);
		return;
	}
	assert_int_equal(frame_filter__new(down, &fo, &ff), 0);
	up = frame_filter__sink(ff);
	generate(&up);
	frame_filter__free(ff);
}

static void write_trace(const char *path, const struct perfetto_writer_opts *o, uint64_t min_ns)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	struct perfetto_writer *w;
	struct frame_sink sink;

	assert_true(fd >= 0);
	assert_int_equal(perfetto_writer__new(byte_sink__fd(fd), o, &w), 0);
	sink = perfetto_writer__sink(w);
	play(&sink, min_ns);
	perfetto_writer__free(w);
	close(fd);
}

static void read_trace(const char *path, struct log *l)
{
	struct frame_sink sink = { &log_ops, l };
	char err[256];

	if (perfetto_reader__read(path, &sink, err, sizeof(err)))
		fail_msg("read %s: %s", path, err);
}

/* The i-th record of thread who, or NULL. */
static const struct rec *nth(const struct log *l, const char *who, size_t i)
{
	for (size_t k = 0; k < l->n; k++)
		if (!strcmp(l->r[k].who, who) && !i--)
			return &l->r[k];
	return NULL;
}

static void same_per_thread(const struct log *want, const struct log *got)
{
	static const char *const threads[] = { "11/a", "12/b", "13/c", "14/d", "14/e" };
	size_t total = 0;

	for (size_t t = 0; t < sizeof(threads) / sizeof(threads[0]); t++)
		for (size_t i = 0;; i++) {
			const struct rec *w = nth(want, threads[t], i),
					 *g = nth(got, threads[t], i);

			if (!w) {
				assert_null(g);
				break;
			}
			assert_non_null(g);
			assert_int_equal(g->kind, w->kind);
			assert_string_equal(g->what, w->what);
			assert_int_equal(g->state, w->state);
			assert_int_equal(g->depth, w->depth);
			assert_int_equal(g->begin, w->begin);
			assert_int_equal(g->end, w->end);
			assert_int_equal(g->cpu, w->cpu);
			total++;
		}
	assert_int_equal(total, want->n);
	assert_int_equal(got->n, want->n);
	assert_int_equal(got->switches, want->switches);
}

/* The leave of the frame of thread who that began at begin. */
static const struct rec *frame_at(const struct log *l, const char *who, uint64_t begin)
{
	for (size_t k = 0; k < l->n; k++)
		if (l->r[k].kind == 'L' && !strcmp(l->r[k].who, who) && l->r[k].begin == T0 + begin)
			return &l->r[k];
	fail_msg("no frame of %s at %llu", who, (unsigned long long)begin);
	return NULL;
}

static size_t count(const struct log *l, char kind)
{
	size_t n = 0;

	for (size_t k = 0; k < l->n; k++)
		n += l->r[k].kind == kind;
	return n;
}

/* The leaves of thread who's calls of what. */
static size_t calls_of(const struct log *l, const char *who, const char *what)
{
	size_t n = 0;

	for (size_t k = 0; k < l->n; k++)
		n += l->r[k].kind == 'L' && !strcmp(l->r[k].who, who) &&
		     !strcmp(l->r[k].what, what);
	return n;
}

static void roundtrip(const struct perfetto_writer_opts *o, uint64_t min_ns)
{
	char path[] = "/tmp/sledtrace-states-XXXXXX";
	struct log *want = calloc(1, sizeof(*want)), *got = calloc(1, sizeof(*got));
	struct frame_sink ref = { &log_ops, want };
	int fd = mkstemp(path);

	assert_true(fd >= 0 && want && got);
	close(fd);
	want->drop_deep = true;
	play(&ref, min_ns);
	write_trace(path, o, min_ns);
	read_trace(path, got);
	same_per_thread(want, got);
	/* what the stream implies, not just agreement */
	assert_int_equal(got->switches, 12 + 1000);
	assert_int_equal(count(got, 'S'), got->switches);
	assert_int_equal(frame_at(got, "11/a", 1100)->cpu, 200);  /* nap: 3200 wall */
	assert_int_equal(frame_at(got, "11/a", 1000)->cpu, 1000); /* main: 4000 wall */
	/* a's 500 naps of 90 ns: kept unless min_ns drops them */
	assert_int_equal(calls_of(got, "11/a", "nap"), min_ns > 90 ? 1 : 501);
	if (min_ns < 800)
		assert_int_equal(frame_at(got, "12/b", 5100)->cpu, 300); /* runs 5600..5900 */
	assert_int_equal(frame_at(got, "12/b", 1400)->cpu, 4600);	 /* 5600 less 2 x 500 */
	assert_int_equal(frame_at(got, "13/c", 1500)->cpu, 2900);	 /* no switch: wall */
	assert_int_equal(frame_at(got, "14/d", 10000)->cpu, 22000 + (DEEP - 1) * 10 - 10000 - 1000);
	assert_int_equal(frame_at(got, "14/e", 31500)->cpu, 500); /* asleep to its end */
	assert_int_equal(frame_at(got, "11/a", 50000)->cpu, 51000 - 500 * 40);
	for (int i = 0; i < 16; i++) {
		free(want->names[i]);
		free(got->names[i]);
	}
	free(want);
	free(got);
	unlink(path);
}

static void test_states_compressed(void **state)
{
	(void)state;
	roundtrip(NULL, 0);
}

/* A --min-duration filter before the writer (record's): the switches all
 * pass, those inside calls that may yet be dropped held back until their
 * fate is known, so the calls kept keep their on-CPU time. */
static void test_states_min_duration(void **state)
{
	(void)state;
	roundtrip(NULL, 1000);
}

static void test_states_small_chunks(void **state)
{
	struct perfetto_writer_opts o = { .chunk_bytes = 512, .max_buffered = 1024 };

	(void)state;
	roundtrip(&o, 0);
}

static void test_states_plain(void **state)
{
	struct perfetto_writer_opts o = { .plain = true };

	(void)state;
	roundtrip(&o, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_states_compressed),
		cmocka_unit_test(test_states_small_chunks),
		cmocka_unit_test(test_states_plain),
		cmocka_unit_test(test_states_min_duration),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
