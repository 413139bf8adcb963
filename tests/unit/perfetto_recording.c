// SPDX-License-Identifier: MIT
/* perfetto_recording.c: the synthetic recording, the writer onto a file and
 * the counting sink of perfetto_recording.h. */
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

#include "format/codec/gzout.h"
#include "format/perfetto/perfetto_reader.h"
#include "perfetto_recording.h"

static int c_function(void *ctx, const struct trace_function *fn)
{
	struct counts *c = ctx;

	assert_true(fn->id > 0 && fn->id < MAXF);
	assert_null(c->name[fn->id]);
	c->name[fn->id] = strdup(fn->name);
	c->file[fn->id] = fn->file ? strdup(fn->file) : NULL;
	c->line[fn->id] = fn->line;
	c->mangled[fn->id] = fn->mangled ? strdup(fn->mangled) : NULL;
	c->object[fn->id] = fn->object ? strdup(fn->object) : NULL;
	c->build_id[fn->id] = fn->build_id && *fn->build_id ? strdup(fn->build_id) : NULL;
	c->addr[fn->id] = fn->addr;
	return 0;
}

static int c_thread(void *ctx, const struct trace_thread *th)
{
	struct counts *c = ctx;
	size_t n = strlen(c->thread_names);

	c->threads++;
	snprintf(c->thread_names + n, sizeof(c->thread_names) - n, "%u/%u:%s/%s/%s;", th->pid,
		 th->tid, th->name, th->process_name, th->cmdline ? th->cmdline : "-");
	return 0;
}

static int c_enter(void *ctx, const struct trace_thread *th, const struct frame *stack,
		   uint32_t depth)
{
	struct counts *c = ctx;
	uint32_t fid = stack[depth - 1].fid;

	(void)th;
	assert_non_null(c->name[fid]);
	if (c->cap && depth > c->cap)
		return 0;
	c->enters++;
	c->begin_sum[fid] += stack[depth - 1].begin_ns;
	if (depth > c->max_depth)
		c->max_depth = depth;
	return 0;
}

static int c_leave(void *ctx, const struct trace_thread *th, const struct frame *stack,
		   uint32_t depth, uint64_t end_ns, enum frame_end how)
{
	struct counts *c = ctx;
	uint32_t fid = stack[depth - 1].fid;
	uint64_t dur = end_ns - stack[depth - 1].begin_ns;

	(void)th;
	if (c->cap && depth > c->cap) {
		c->el_calls[fid]++;
		c->el_total[fid] += dur;
		return 0;
	}
	c->leaves++;
	c->inferred += how == FRAME_INFERRED; /* written per frame, read back */
	c->calls[fid]++;
	c->total[fid] += dur;
	return 0;
}

static int c_elided(void *ctx, const struct trace_thread *th, uint32_t fid, uint64_t calls,
		    uint64_t total_ns)
{
	struct counts *c = ctx;

	(void)th;
	assert_non_null(c->name[fid]);
	c->el_calls[fid] += calls;
	c->el_total[fid] += total_ns;
	return 0;
}

static int c_stats(void *ctx, const struct trace_stats *st)
{
	struct counts *c = ctx;

	c->st = *st;
	c->nstats++;
	return 0;
}

static int c_finish(void *ctx)
{
	((struct counts *)ctx)->nfinish++;
	return 0;
}

const struct frame_sink_ops counting_ops = {
	c_function, c_thread, c_enter, c_leave, c_elided, c_stats, c_finish,
};

void counts_free(struct counts *c)
{
	for (int i = 0; i < MAXF; i++) {
		free(c->name[i]);
		free(c->file[i]);
		free(c->mangled[i]);
		free(c->object[i]);
		free(c->build_id[i]);
	}
}

const struct trace_stats input_stats = {
	.events = 123456,
	.ringbuf_drops = 7,
	.unmatched_exits = 1,
	.inferred_exits = 0,
	.unfinished = 0,
	.depth_capped = 5,
	.max_depth_dropped = 11,
	.short_dropped = 13,
	.ignored_sleds = 19,
};

void generate(const struct frame_sink *sink)
{
	struct frame_builder *fb = frame_builder__new(sink);
	struct fb_thread *a, *b, *c;
	struct trace_stats st = input_stats;
	char name[64], file[64], mangled[64];
	uint64_t ts = BASE_TS;

	assert_non_null(fb);
	for (uint32_t id = 1; id <= NFUNCS; id++) {
		struct trace_function fn = { .id = id, .name = name };

		snprintf(name, sizeof(name), "ns::func_%u(int)", id);
		snprintf(mangled, sizeof(mangled), "_ZN2ns7func_%uEi", id);
		if (id % 3) { /* two objects, one without a build-id; some unknown */
			fn.mangled = mangled;
			fn.object = id % 3 == 1 ? "/usr/bin/app" : "/usr/lib/libx.so";
			fn.build_id = id % 3 == 1 ? "0123456789abcdef0123456789abcdef01234567" : "";
			fn.addr = 0x401000 + id * 0x40;
		}
		if (id % 2) {
			snprintf(file, sizeof(file), "/src/file_%u.c", id % 7);
			fn.file = file;
			fn.line = id * 3;
		}
		assert_int_equal(frame_builder__function(fb, &fn), 0);
	}
	assert_int_equal(frame_builder__thread(fb, 100, 101, "main", "app", "app --x", &a), 0);
	assert_int_equal(frame_builder__thread(fb, 100, 102, "worker", "app", "app --x", &b), 0);
	assert_int_equal(frame_builder__thread(fb, 200, 201, "other", "tool", NULL, &c), 0);
	for (uint32_t i = 0; i < 20000; i++) {
		struct fb_thread *t = i % 3 ? a : b;

		assert_int_equal(frame_builder__enter(fb, t, 1 + i % NFUNCS, ts += 3, 0), 0);
		assert_int_equal(frame_builder__enter(fb, t, 1 + (i * 7) % NFUNCS, ts += 5, 0), 0);
		assert_int_equal(frame_builder__leave(fb, t, ts += 1 + i % 1000, FRAME_RETURNED),
				 0);
		assert_int_equal(frame_builder__leave(fb, t, ts += 2,
						      i % 5 ? FRAME_RETURNED : FRAME_INFERRED),
				 0);
	}
	for (uint32_t d = 0; d < DEEP; d++)
		assert_int_equal(frame_builder__enter(fb, c, 2, ts += 10, 0), 0);
	for (uint32_t k = 0; k < 3; k++) {
		assert_int_equal(frame_builder__enter(fb, c, NFUNCS, ts += 4, 0), 0);
		assert_int_equal(frame_builder__leave(fb, c, ts += 6, FRAME_TAIL), 0);
	}
	for (uint32_t d = 0; d < DEEP; d++)
		assert_int_equal(frame_builder__leave(fb, c, ts += 1, FRAME_RETURNED), 0);
	/* left open: closed as unfinished by finish() */
	assert_int_equal(frame_builder__enter(fb, c, 3, ts += 10, 0), 0);
	assert_int_equal(frame_builder__enter(fb, c, 4, ts += 10, 0), 0);
	assert_int_equal(frame_builder__enter(fb, a, 5, ts += 10, 0), 0);
	assert_int_equal(frame_builder__leave(fb, b, ts += 1, FRAME_RETURNED), 0); /* unmatched */
	assert_int_equal(frame_builder__finish(fb, &st), 0);
	frame_builder__free(fb);
}

int write_trace(const char *path, const struct perfetto_writer_opts *o, bool gz)
{
	struct perfetto_writer *w;
	struct frame_sink sink;
	struct gzout *g = NULL;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	struct byte_sink out = byte_sink__fd(fd);
	uint8_t magic[2] = { 0 };

	assert_true(fd >= 0);
	if (gz) {
		assert_int_equal(gzout__new(out, 1, &g), 0);
		out = gzout__sink(g);
	}
	assert_int_equal(perfetto_writer__new(out, o, &w), 0);
	sink = perfetto_writer__sink(w);
	generate(&sink);
	assert_true(perfetto_writer__bytes(w) > 0);
	perfetto_writer__free(w);
	if (g) {
		assert_int_equal(gzout__finish(g), 0);
		assert_true(gzout__bytes(g) > 0);
		gzout__free(g);
	}
	close(fd);
	fd = open(path, O_RDONLY);
	assert_int_equal(read(fd, magic, 2), 2);
	assert_int_equal(magic[0] == 0x1f && magic[1] == 0x8b, gz);
	close(fd);
	return 0;
}

uint32_t id_by_name(const struct counts *c, const char *name)
{
	for (uint32_t i = 1; i < MAXF; i++)
		if (c->name[i] && !strcmp(c->name[i], name))
			return i;
	return 0;
}

void read_into(const char *path, struct counts *c)
{
	struct frame_sink sink = { &counting_ops, c };
	char err[256];
	int rc = perfetto_reader__read(path, &sink, err, sizeof(err));

	if (rc)
		fail_msg("read %s: %s", path, err);
}
