// SPDX-License-Identifier: MIT
/* test_perfetto_roundtrip.c: the Perfetto writer and reader against each
 * other.  A synthetic frame stream goes through a frame_builder into the
 * writer; the file is read back into a counting sink and compared with the
 * same stream counted directly (with the writer's depth cap applied), so
 * every count, timestamp, name, identity (object, build-id, mangled name,
 * address), stat and elided record must survive, and a reused tid must
 * come back as a thread of its own, and a source location asked for
 * lazily must be asked once, for used functions only, and come back.
 * Written through a gzip stream (the writer's other sink), the file must
 * be gzip and read back the same.  Damaged files (truncated, byte-flipped, not a trace) must fail cleanly. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "model/frames.h"
#include "format/perfetto/perfetto_reader.h"
#include "format/perfetto/perfetto_writer.h"
#include "perfetto_recording.h"

static void compare(const struct counts *want, const struct counts *got)
{
	uint64_t capped = 0;

	for (uint32_t i = 1; i <= NFUNCS; i++) {
		uint32_t j = id_by_name(got, want->name[i]);

		capped += want->el_calls[i];
		if (!want->calls[i] && !want->el_calls[i])
			continue;
		assert_true(j > 0);
		assert_int_equal(got->calls[j], want->calls[i]);
		assert_int_equal(got->total[j], want->total[i]);
		assert_int_equal(got->begin_sum[j], want->begin_sum[i]);
		assert_int_equal(got->el_calls[j], want->el_calls[i]);
		assert_int_equal(got->el_total[j], want->el_total[i]);
		assert_int_equal(got->line[j], want->line[i]);
		assert_int_equal(got->addr[j], want->addr[i]);
		for (int k = 0; k < 3; k++) {
			const char *w = k == 0	 ? want->mangled[i]
					: k == 1 ? want->object[i]
						 : want->build_id[i];
			const char *g = k == 0	 ? got->mangled[j]
					: k == 1 ? got->object[j]
						 : got->build_id[j];

			if (w)
				assert_string_equal(g, w);
			else
				assert_null(g);
		}
		if (want->file[i])
			assert_string_equal(got->file[j], want->file[i]);
		else
			assert_null(got->file[j]);
	}
	assert_int_equal(got->enters, want->enters);
	assert_int_equal(got->leaves, want->leaves);
	assert_int_equal(got->inferred, want->inferred);
	assert_int_equal(got->max_depth, PERFETTO_MAX_DEPTH);
	assert_string_equal(got->thread_names, want->thread_names);
	assert_int_equal(got->nstats, 1);
	assert_int_equal(got->nfinish, 1);
	for (size_t k = 0; k < perfetto_stat_nfields; k++) {
		size_t off = perfetto_stat_fields[k].offset;
		uint64_t w = *(const uint64_t *)((const char *)&want->st + off);
		uint64_t g = *(const uint64_t *)((const char *)&got->st + off);

		if (off == offsetof(struct trace_stats, depth_capped))
			w += capped;
		assert_int_equal(g, w);
	}
}

static void roundtrip(const struct perfetto_writer_opts *o, bool gz)
{
	char path[] = "/tmp/sledtrace-rt-XXXXXX";
	struct counts *want = calloc(1, sizeof(*want)), *got = calloc(1, sizeof(*got));
	struct frame_sink ref = { &counting_ops, want };
	int fd = mkstemp(path);

	assert_true(fd >= 0 && want && got);
	close(fd);
	want->cap = PERFETTO_MAX_DEPTH;
	generate(&ref);
	write_trace(path, o, gz);
	read_into(path, got);
	compare(want, got);
	/* the numbers the generator implies, not just agreement */
	assert_int_equal(want->el_calls[2], DEEP - PERFETTO_MAX_DEPTH);
	assert_int_equal(want->el_calls[NFUNCS], 3);
	assert_int_equal(got->st.unfinished, 3);
	assert_int_equal(got->st.unmatched_exits, input_stats.unmatched_exits + 1);
	assert_int_equal(got->st.inferred_exits, 4000); /* counted once */
	assert_int_equal(got->inferred, 4000);
	assert_int_equal(got->st.depth_capped, input_stats.depth_capped + DEEP - 512 + 3);
	assert_int_equal(got->leaves, 40000 + 512 + 3);
	counts_free(want);
	counts_free(got);
	free(want);
	free(got);
	unlink(path);
}

static void test_roundtrip_compressed(void **state)
{
	(void)state;
	roundtrip(NULL, false);
}

static void test_roundtrip_gzip(void **state)
{
	(void)state;
	roundtrip(NULL, true);
}

static void test_roundtrip_small_chunks(void **state)
{
	/* many chunks, and the memory bound forcing early flushes */
	struct perfetto_writer_opts o = { .chunk_bytes = 2048, .max_buffered = 3000 };

	(void)state;
	roundtrip(&o, false);
}

static void test_roundtrip_plain(void **state)
{
	struct perfetto_writer_opts o = { .plain = true };

	(void)state;
	roundtrip(&o, false);
}

static uint8_t *load(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *p;
	long n;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	p = malloc((size_t)n);
	assert_non_null(p);
	assert_int_equal(fread(p, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*len = (size_t)n;
	return p;
}

static void store(const char *path, const uint8_t *p, size_t n)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(p, 1, n, f), n);
	fclose(f);
}

/* Returns the reader's status; err gets its message. */
static int read_damaged(const char *path, char *err, size_t errlen)
{
	struct counts *c = calloc(1, sizeof(*c));
	struct frame_sink sink = { &counting_ops, c };
	int rc;

	assert_non_null(c);
	rc = perfetto_reader__read(path, &sink, err, errlen);
	if (rc)
		assert_true(strlen(err) > 0 && !strchr(err, '\n'));
	counts_free(c);
	free(c);
	return rc;
}

static void test_damaged(void **state)
{
	char good[] = "/tmp/sledtrace-good-XXXXXX", bad[] = "/tmp/sledtrace-bad-XXXXXX";
	int fd1 = mkstemp(good), fd2 = mkstemp(bad);
	char err[256];
	uint8_t *p;
	size_t n;

	(void)state;
	assert_true(fd1 >= 0 && fd2 >= 0);
	close(fd1);
	close(fd2);
	write_trace(good, NULL, false);
	p = load(good, &n);
	assert_true(n > 1000);
	/* the header packet alone (a sledtrace file without its stats), too */
	size_t cuts[] = { 1, 2, 3, 2 + (size_t)p[1], 40, n / 4, n / 2, n - 100, n - 2, n - 1 };
	for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
		store(bad, p, cuts[i]);
		assert_true(read_damaged(bad, err, sizeof(err)) < 0);
		assert_non_null(strstr(err, "truncated at byte"));
	}
	p[n / 2] ^= 0xff;
	store(bad, p, n);
	assert_true(read_damaged(bad, err, sizeof(err)) < 0);
	p[n / 2] ^= 0xff;
	for (size_t i = 0; i < n; i += n / 97 + 1) { /* must never crash */
		p[i] ^= 0x5a;
		store(bad, p, n);
		read_damaged(bad, err, sizeof(err));
		p[i] ^= 0x5a;
	}
	store(bad, (const uint8_t *)"hello, world\n", 13);
	assert_true(read_damaged(bad, err, sizeof(err)) < 0);
	assert_non_null(strstr(err, "not a Perfetto trace"));
	store(bad, p, 0);
	assert_true(read_damaged(bad, err, sizeof(err)) < 0);
	assert_true(read_damaged("/nonexistent/trace", err, sizeof(err)) < 0);
	free(p);
	unlink(good);
	unlink(bad);
}

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

static void test_write_error(void **state)
{
	struct perfetto_writer *w = NULL;
	int fd = open("/dev/full", O_WRONLY);

	(void)state;
	if (fd < 0)
		skip();
	assert_int_equal(perfetto_writer__new(byte_sink__fd(fd), NULL, &w), -ENOSPC);
	assert_null(w);
	close(fd);
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
		cmocka_unit_test(test_roundtrip_compressed),
		cmocka_unit_test(test_roundtrip_gzip),
		cmocka_unit_test(test_roundtrip_small_chunks),
		cmocka_unit_test(test_roundtrip_plain),
		cmocka_unit_test(test_damaged),
		cmocka_unit_test(test_reused_tid),
		cmocka_unit_test(test_lazy_locate),
		cmocka_unit_test(test_write_error),
		cmocka_unit_test(test_speed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
