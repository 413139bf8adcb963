// SPDX-License-Identifier: MIT
/* test_perfetto_writer.c: the Perfetto writer on small hand-built streams:
 * a reused tid must come back as a thread of its own, and a source
 * location asked for lazily must be asked once, for used functions only,
 * and come back; and the writer's cost per event, printed. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "format/perfetto/perfetto_writer.h"
#include "model/frames.h"
#include "perfetto_recording.h"

/* A thread ends inside a call and a new thread gets its tid: the trace
 * has two tracks, the reader gives back two threads, each with its own
 * name and calls, and the first one's open call ends when it did. */
static void test_reused_tid(void **state)
{
	char path[] = "/tmp/sledtrace-tid-XXXXXX";
	struct counts *got = calloc(1, sizeof(*got));
	struct trace_function f1 = { .id = 1, .name = "f1" }, f2 = { .id = 2, .name = "f2" };
	struct perfetto_writer *w;
	struct frame_builder *fb;
	struct frame_sink sink;
	struct fb_thread *a, *b;
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0 && got);
	assert_int_equal(perfetto_writer__new(byte_sink__fd(fd), NULL, &w), 0);
	sink = perfetto_writer__sink(w);
	assert_non_null(fb = frame_builder__new(&sink));
	assert_int_equal(frame_builder__function(fb, &f1), 0);
	assert_int_equal(frame_builder__function(fb, &f2), 0);
	assert_int_equal(frame_builder__thread(fb, 100, 101, "first", "app", NULL, &a), 0);
	assert_int_equal(frame_builder__enter(fb, a, 1, BASE_TS, 0), 0);
	assert_int_equal(frame_builder__end_thread(fb, a, BASE_TS + 50), 0);
	assert_int_equal(frame_builder__thread(fb, 100, 101, "second", "app", NULL, &b), 0);
	assert_ptr_not_equal(a, b);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(frame_builder__enter(fb, b, 2, BASE_TS + 100 + i * 10, 0), 0);
		assert_int_equal(
			frame_builder__leave(fb, b, BASE_TS + 105 + i * 10, FRAME_RETURNED), 0);
	}
	assert_int_equal(frame_builder__finish(fb, NULL), 0);
	frame_builder__free(fb);
	perfetto_writer__free(w);
	close(fd);
	read_into(path, got);
	assert_int_equal(got->threads, 2);
	assert_string_equal(got->thread_names, "100/101:first/app/-;100/101:second/app/-;");
	assert_int_equal(got->calls[id_by_name(got, "f1")], 1);
	assert_int_equal(got->total[id_by_name(got, "f1")], 50);
	assert_int_equal(got->calls[id_by_name(got, "f2")], 2);
	assert_int_equal(got->total[id_by_name(got, "f2")], 10);
	assert_int_equal(got->max_depth, 1);
	counts_free(got);
	free(got);
	unlink(path);
}

/* trace_function.locate: asked once per function, only for the functions
 * a trace uses and only when no file was given; what it answers is the
 * source location read back. */
static int locate_calls[8];

static int fake_locate(void *ctx, uint64_t key, const char **file, uint32_t *line)
{
	(void)ctx;
	locate_calls[key]++;
	if (key != 1)
		return -ENOENT;
	*file = "src/a.c";
	*line = 10;
	return 0;
}

static void test_lazy_locate(void **state)
{
	char path[] = "/tmp/sledtrace-locate-XXXXXX";
	struct counts *got = calloc(1, sizeof(*got));
	struct trace_function fns[4] = {
		{ .id = 1, .name = "found", .locate = fake_locate, .locate_key = 1 },
		{ .id = 2, .name = "unknown", .locate = fake_locate, .locate_key = 2 },
		{ .id = 3, .name = "unused", .locate = fake_locate, .locate_key = 3 },
		{ .id = 4,
		  .name = "given",
		  .file = "g.c",
		  .line = 7,
		  .locate = fake_locate,
		  .locate_key = 4 },
	};
	const uint32_t used[] = { 1, 2, 4 };
	struct perfetto_writer *w;
	struct frame_builder *fb;
	struct frame_sink sink;
	struct fb_thread *t[2];
	int fd = mkstemp(path);

	(void)state;
	memset(locate_calls, 0, sizeof(locate_calls));
	assert_true(fd >= 0 && got);
	assert_int_equal(perfetto_writer__new(byte_sink__fd(fd), NULL, &w), 0);
	sink = perfetto_writer__sink(w);
	assert_non_null(fb = frame_builder__new(&sink));
	for (int i = 0; i < 4; i++)
		assert_int_equal(frame_builder__function(fb, &fns[i]), 0);
	assert_int_equal(locate_calls[1] + locate_calls[2] + locate_calls[3], 0);
	assert_int_equal(frame_builder__thread(fb, 100, 101, "a", "app", NULL, &t[0]), 0);
	assert_int_equal(frame_builder__thread(fb, 100, 102, "b", "app", NULL, &t[1]), 0);
	for (int k = 0; k < 2; k++)
		for (int i = 0; i < 3; i++) {
			uint64_t ts = BASE_TS + (uint64_t)(k * 100 + i * 10);

			assert_int_equal(frame_builder__enter(fb, t[k], used[i], ts, 0), 0);
			assert_int_equal(frame_builder__leave(fb, t[k], ts + 5, FRAME_RETURNED), 0);
		}
	assert_int_equal(frame_builder__finish(fb, NULL), 0);
	frame_builder__free(fb);
	perfetto_writer__free(w);
	close(fd);
	assert_int_equal(locate_calls[1], 1);
	assert_int_equal(locate_calls[2], 1);
	assert_int_equal(locate_calls[3], 0);
	assert_int_equal(locate_calls[4], 0);
	read_into(path, got);
	assert_string_equal(got->file[id_by_name(got, "found")], "src/a.c");
	assert_int_equal(got->line[id_by_name(got, "found")], 10);
	assert_null(got->file[id_by_name(got, "unknown")]);
	assert_string_equal(got->file[id_by_name(got, "given")], "g.c");
	assert_int_equal(got->line[id_by_name(got, "given")], 7);
	assert_int_equal(got->calls[id_by_name(got, "found")], 2);
	counts_free(got);
	free(got);
	unlink(path);
}

/* Not an assertion: prints the hot path's cost per event. */
static void test_speed(void **state)
{
	struct perfetto_writer *w;
	struct frame_builder *fb;
	struct fb_thread *t;
	struct frame_sink sink;
	struct timespec t0, t1;
	int fd = open("/dev/null", O_WRONLY);
	const uint32_t n = 1000000;

	(void)state;
	assert_int_equal(perfetto_writer__new(byte_sink__fd(fd), NULL, &w), 0);
	sink = perfetto_writer__sink(w);
	fb = frame_builder__new(&sink);
	for (uint32_t id = 1; id <= 64; id++) {
		struct trace_function fn = {
			.id = id, .name = "some_function_name", .file = "/src/a.c", .line = id
		};

		frame_builder__function(fb, &fn);
	}
	frame_builder__thread(fb, 1, 1, "t", "p", NULL, &t);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (uint32_t i = 0; i < n / 2; i++) {
		assert_int_equal(frame_builder__enter(fb, t, 1 + i % 64, BASE_TS + i * 100ULL, 0),
				 0);
		assert_int_equal(frame_builder__leave(fb, t, BASE_TS + i * 100ULL + 37, 0), 0);
	}
	assert_int_equal(frame_builder__finish(fb, NULL), 0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	print_message("writer: %.1f ns/event, %.2f bytes/event\n",
		      ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / n,
		      (double)perfetto_writer__bytes(w) / n);
	frame_builder__free(fb);
	perfetto_writer__free(w);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reused_tid),
		cmocka_unit_test(test_lazy_locate),
		cmocka_unit_test(test_speed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
