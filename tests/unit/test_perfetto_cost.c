// SPDX-License-Identifier: MIT
/* test_perfetto_cost.c: a sink that asks for the probe cost
 * (frame_sink_ops.probe_cost) gets it before anything else, once, and it
 * is the cost the trace's stats end with: read from the last packet of a
 * compressed, a plain and a gzip'd trace and through a pipe; and, for a
 * trace whose stats lack it (an older sledtrace's), calibrated from the
 * calls as the frame builder does.  A sink without the op is not asked,
 * and a truncated trace fails as a plain read does. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include <cmocka.h>

#include "format/perfetto/perfetto_reader.h"
#include "format/perfetto/perfetto_writer.h"
#include "model/frames.h"

struct seen {
	int ncost, frames_before_cost, nframes;
	uint64_t cost, call_cost;
	struct trace_stats st;
};

static int s_enter(void *ctx, const struct trace_thread *th, const struct frame *stack,
		   uint32_t depth)
{
	struct seen *s = ctx;

	(void)th;
	(void)stack;
	(void)depth;
	s->nframes++;
	if (!s->ncost)
		s->frames_before_cost++;
	return 0;
}

static int s_leave(void *ctx, const struct trace_thread *th, const struct frame *stack,
		   uint32_t depth, uint64_t end_ns, enum frame_end how)
{
	(void)end_ns;
	(void)how;
	return s_enter(ctx, th, stack, depth);
}

static int s_stats(void *ctx, const struct trace_stats *st)
{
	((struct seen *)ctx)->st = *st;
	return 0;
}

static int s_cost(void *ctx, const struct comp_cost *cost)
{
	struct seen *s = ctx;

	s->ncost++;
	s->cost = cost->inside_ns;
	s->call_cost = cost->call_ns;
	return 0;
}

static const struct frame_sink_ops asking_ops = {
	.enter = s_enter, .leave = s_leave, .stats = s_stats, .probe_cost = s_cost
};
static const struct frame_sink_ops plain_ops = { .enter = s_enter,
						 .leave = s_leave,
						 .stats = s_stats };

/* Passes everything to the writer, with the stats' probe cost dropped
 * when asked: what a trace of an older sledtrace holds. */
struct strip {
	struct frame_sink w;
	bool drop_cost;
};

/* Stats with record's measure of an entry and an exit hit, when set. */
static bool write_measured;

static int t_function(void *ctx, const struct trace_function *fn)
{
	struct strip *s = ctx;

	return s->w.ops->function(s->w.ctx, fn);
}

static int t_thread(void *ctx, const struct trace_thread *th)
{
	struct strip *s = ctx;

	return s->w.ops->thread(s->w.ctx, th);
}

static int t_enter(void *ctx, const struct trace_thread *th, const struct frame *stack,
		   uint32_t depth)
{
	struct strip *s = ctx;

	return s->w.ops->enter(s->w.ctx, th, stack, depth);
}

static int t_leave(void *ctx, const struct trace_thread *th, const struct frame *stack,
		   uint32_t depth, uint64_t end_ns, enum frame_end how)
{
	struct strip *s = ctx;

	return s->w.ops->leave(s->w.ctx, th, stack, depth, end_ns, how);
}

static int t_stats(void *ctx, const struct trace_stats *st)
{
	struct strip *s = ctx;
	struct trace_stats copy = *st;

	if (s->drop_cost)
		copy.probe_cost_ns = 0;
	if (write_measured) {
		copy.probe_entry_ns = 70;
		copy.probe_exit_ns = 40;
	}
	return s->w.ops->stats(s->w.ctx, &copy);
}

static int t_finish(void *ctx)
{
	struct strip *s = ctx;

	return s->w.ops->finish(s->w.ctx);
}

static const struct frame_sink_ops strip_ops = {
	.function = t_function,
	.thread = t_thread,
	.enter = t_enter,
	.leave = t_leave,
	.stats = t_stats,
	.finish = t_finish,
};

/* main { leaf 70 ns, leaf 50 ns, leaf 90 ns }: the cost calibrates to 50. */
static void write_trace(const char *path, bool plain, bool drop_cost)
{
	struct perfetto_writer_opts o = { .plain = plain };
	struct trace_function fns[] = { { .id = 1, .name = "main" }, { .id = 2, .name = "leaf" } };
	static const uint64_t leaf[][2] = { { 100, 170 }, { 200, 250 }, { 300, 390 } };
	struct trace_stats st = { .events = 8 };
	struct perfetto_writer *w;
	struct frame_builder *fb;
	struct fb_thread *t;
	struct strip s = { .drop_cost = drop_cost };
	struct frame_sink sink = { .ops = &strip_ops, .ctx = &s };
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	assert_true(fd >= 0);
	assert_int_equal(perfetto_writer__new(byte_sink__fd(fd), &o, &w), 0);
	s.w = perfetto_writer__sink(w);
	assert_non_null(fb = frame_builder__new(&sink));
	for (size_t i = 0; i < 2; i++)
		assert_int_equal(frame_builder__function(fb, &fns[i]), 0);
	assert_int_equal(frame_builder__thread(fb, 10, 10, "t", "p", NULL, &t), 0);
	assert_int_equal(frame_builder__enter(fb, t, 1, 50, 0), 0);
	for (size_t i = 0; i < 3; i++) {
		assert_int_equal(frame_builder__enter(fb, t, 2, leaf[i][0], 0), 0);
		assert_int_equal(frame_builder__leave(fb, t, leaf[i][1], FRAME_RETURNED), 0);
	}
	assert_int_equal(frame_builder__leave(fb, t, 400, FRAME_RETURNED), 0);
	assert_int_equal(frame_builder__finish(fb, &st), 0);
	frame_builder__free(fb);
	perfetto_writer__free(w);
	close(fd);
}

static struct seen read_asking(const char *path)
{
	struct seen s = { 0 };
	struct frame_sink sink = { .ops = &asking_ops, .ctx = &s };
	char err[256];

	if (perfetto_reader__read(path, &sink, err, sizeof(err)))
		fail_msg("%s", err);
	return s;
}

static void expect_first(const struct seen *s, uint64_t cost)
{
	assert_int_equal(s->ncost, 1);
	assert_int_equal(s->frames_before_cost, 0);
	assert_int_equal(s->nframes, 8);
	assert_int_equal(s->cost, cost);
	assert_int_equal(s->call_cost, 2 * cost); /* no entry and exit measured */
	assert_int_equal(s->st.probe_cost_ns, cost);
}

static void gzip_copy(const char *from, const char *to)
{
	char buf[4096];
	int in = open(from, O_RDONLY), n;
	gzFile out = gzopen(to, "wb");

	assert_true(in >= 0 && out);
	while ((n = (int)read(in, buf, sizeof(buf))) > 0)
		assert_int_equal(gzwrite(out, buf, (unsigned)n), n);
	assert_int_equal(gzclose(out), Z_OK);
	close(in);
}

/* The trace through a pipe on standard input, which cannot be read twice. */
static struct seen read_piped(const char *path)
{
	int p[2], saved = dup(STDIN_FILENO), status;
	struct seen s;
	pid_t pid;

	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		char buf[4096];
		int in = open(path, O_RDONLY), n;

		close(p[0]);
		while ((n = (int)read(in, buf, sizeof(buf))) > 0)
			if (write(p[1], buf, (size_t)n) != n)
				_exit(1);
		_exit(0);
	}
	close(p[1]);
	assert_true(dup2(p[0], STDIN_FILENO) >= 0);
	close(p[0]);
	s = read_asking("-");
	assert_true(dup2(saved, STDIN_FILENO) >= 0);
	close(saved);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	return s;
}

static void test_cost_first(void **state)
{
	char path[] = "/tmp/sledtrace-cost-XXXXXX", gz[sizeof(path) + 3];
	int fd = mkstemp(path);
	struct seen s;

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	snprintf(gz, sizeof(gz), "%s.gz", path);
	for (int plain = 0; plain < 2; plain++)
		for (int drop = 0; drop < 2; drop++) {
			write_trace(path, plain, drop);
			s = read_asking(path);
			expect_first(&s, 50);
			gzip_copy(path, gz);
			s = read_asking(gz);
			expect_first(&s, 50);
			s = read_piped(path);
			expect_first(&s, 50);
		}
	unlink(path);
	unlink(gz);
}

/* The measured entry and exit hit are handed over with the shortest leaf:
 * C = 70 + 40, from the tail as from a trace read whole. */
static void test_measured_cost(void **state)
{
	char path[] = "/tmp/sledtrace-cost-XXXXXX";
	int fd = mkstemp(path);
	struct seen s;

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	write_measured = true;
	write_trace(path, false, false);
	write_measured = false;
	s = read_asking(path);
	assert_int_equal(s.ncost, 1);
	assert_int_equal(s.cost, 50);
	assert_int_equal(s.call_cost, 110);
	assert_int_equal(s.st.probe_entry_ns, 70);
	assert_int_equal(s.st.probe_exit_ns, 40);
	unlink(path);
}

static void test_not_asked(void **state)
{
	char path[] = "/tmp/sledtrace-cost-XXXXXX", err[256];
	int fd = mkstemp(path);
	struct seen s = { 0 };
	struct frame_sink sink = { .ops = &plain_ops, .ctx = &s };

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	write_trace(path, false, false);
	assert_int_equal(perfetto_reader__read(path, &sink, err, sizeof(err)), 0);
	assert_int_equal(s.ncost, 0);
	assert_int_equal(s.st.probe_cost_ns, 50);
	unlink(path);
}

/* Cut before its stats, the trace fails the way a plain read says. */
static void test_truncated(void **state)
{
	char path[] = "/tmp/sledtrace-cost-XXXXXX", err[256];
	int fd = mkstemp(path);
	struct seen s = { 0 };
	struct frame_sink sink = { .ops = &asking_ops, .ctx = &s };
	off_t size;

	(void)state;
	assert_true(fd >= 0);
	write_trace(path, false, false);
	size = lseek(fd, 0, SEEK_END);
	assert_int_equal(ftruncate(fd, size - 5), 0);
	close(fd);
	assert_true(perfetto_reader__read(path, &sink, err, sizeof(err)) < 0);
	assert_non_null(strstr(err, "truncated at byte"));
	assert_int_equal(s.ncost, 0);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cost_first),
		cmocka_unit_test(test_measured_cost),
		cmocka_unit_test(test_not_asked),
		cmocka_unit_test(test_truncated),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
