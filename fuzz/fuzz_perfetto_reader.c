// SPDX-License-Identifier: MIT
/* fuzz_perfetto_reader.c: libFuzzer target for the Perfetto reader.  Every
 * input is written to a memfd and read back through /proc/self/fd with a
 * sink that accepts everything, then with one that asks for the probe cost
 * first (perfetto_cost.c frames the input and unpacks its last packet);
 * the reader must fail cleanly, never crash.
 *
 * Built by fuzz/meson.build against the core library (the same sources as
 * sledtrace); run it as the 'fuzz' suite does:
 *   build/fuzz/fuzz_perfetto_reader -max_total_time=30 -rss_limit_mb=2048 CORPUS_DIR
 * A trace written by the unit test (or `sledtrace record`) is a good seed. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "format/perfetto/perfetto_reader.h"

static int nop_fn(void *ctx, const struct trace_function *fn)
{
	(void)ctx;
	(void)fn;
	return 0;
}
static int nop_th(void *ctx, const struct trace_thread *th)
{
	(void)ctx;
	(void)th;
	return 0;
}
static int nop_enter(void *ctx, const struct trace_thread *th, const struct frame *s, uint32_t d)
{
	(void)ctx;
	(void)th;
	(void)s;
	(void)d;
	return 0;
}
static int nop_leave(void *ctx, const struct trace_thread *th, const struct frame *s, uint32_t d,
		     uint64_t end, enum frame_end how)
{
	(void)ctx;
	(void)th;
	(void)s;
	(void)d;
	(void)end;
	(void)how;
	return 0;
}
static int nop_elided(void *ctx, const struct trace_thread *th, uint32_t fid, uint64_t c,
		      uint64_t t)
{
	(void)ctx;
	(void)th;
	(void)fid;
	(void)c;
	(void)t;
	return 0;
}
static int nop_stats(void *ctx, const struct trace_stats *st)
{
	(void)ctx;
	(void)st;
	return 0;
}
static int nop_finish(void *ctx)
{
	(void)ctx;
	return 0;
}

static int nop_cost(void *ctx, const struct comp_cost *cost)
{
	(void)ctx;
	(void)cost;
	return 0;
}

static const struct frame_sink_ops nop_ops = {
	nop_fn, nop_th, nop_enter, nop_leave, nop_elided, nop_stats, nop_finish,
};
static const struct frame_sink_ops cost_ops = {
	.function = nop_fn,
	.thread = nop_th,
	.enter = nop_enter,
	.leave = nop_leave,
	.elided = nop_elided,
	.stats = nop_stats,
	.finish = nop_finish,
	.probe_cost = nop_cost,
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct frame_sink sink = { &nop_ops, NULL }, asking = { &cost_ops, NULL };
	char path[64], err[256];
	int fd = memfd_create("fuzz-trace", MFD_CLOEXEC);

	if (fd < 0)
		return 0;
	if (write(fd, data, size) == (ssize_t)size) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		perfetto_reader__read(path, &sink, err, sizeof(err));
		perfetto_reader__read(path, &asking, err, sizeof(err));
	}
	close(fd);
	return 0;
}
