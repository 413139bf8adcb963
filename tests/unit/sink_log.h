/* SPDX-License-Identifier: MIT */
/* sink_log.h: a frame_sink for unit tests that writes every call it gets
 * as one line of text, so a test states the exact sequence it expects:
 *   T <index> <pid>/<tid> p<process_index> <name>     thread()
 *   > <index> <depth> <fid> @<begin>                   enter()
 *   < <index> <depth> <fid> @<begin>-<end> <how>       leave()
 *   E <index>                                          thread_end()
 *   X <index> <fid> <calls> <total_ns>                 elided()
 *   W <index> <state> @<ts>                            sched()
 *   S <field>=<n>... (non-zero fields only)            stats()
 *   F                                                  finish() */
#ifndef SLEDTRACE_TEST_SINK_LOG_H
#define SLEDTRACE_TEST_SINK_LOG_H

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "model/frames.h"
#include "model/trace_stats.h"

struct sink_log {
	char buf[8192];
	size_t len;
	struct trace_stats st;
};

static void log_add(struct sink_log *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void log_add(struct sink_log *l, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(l->buf + l->len, sizeof(l->buf) - l->len, fmt, ap);
	va_end(ap);
	if (n > 0 && l->len + (size_t)n < sizeof(l->buf))
		l->len += (size_t)n;
}

static int log_thread(void *ctx, const struct trace_thread *th)
{
	log_add(ctx, "T %u %u/%u p%u %s\n", th->index, th->pid, th->tid, th->process_index,
		th->name);
	return 0;
}

static int log_enter(void *ctx, const struct trace_thread *th, const struct frame *st, uint32_t d)
{
	log_add(ctx, "> %u %u %u @%" PRIu64 "\n", th->index, d, st[d - 1].fid, st[d - 1].begin_ns);
	return 0;
}

static int log_leave(void *ctx, const struct trace_thread *th, const struct frame *st, uint32_t d,
		     uint64_t end, enum frame_end how)
{
	static const char *const hows[] = { "ret", "tail", "inferred", "unfinished" };

	log_add(ctx, "< %u %u %u @%" PRIu64 "-%" PRIu64 " %s\n", th->index, d, st[d - 1].fid,
		st[d - 1].begin_ns, end, hows[how]);
	return 0;
}

static int log_thread_end(void *ctx, const struct trace_thread *th)
{
	log_add(ctx, "E %u\n", th->index);
	return 0;
}

static int log_elided(void *ctx, const struct trace_thread *th, uint32_t fid, uint64_t calls,
		      uint64_t total)
{
	log_add(ctx, "X %u %u %" PRIu64 " %" PRIu64 "\n", th->index, fid, calls, total);
	return 0;
}

static int log_sched(void *ctx, const struct trace_thread *th, uint64_t ts, enum thread_state state)
{
	log_add(ctx, "W %u %s @%" PRIu64 "\n", th->index, thread_state_names[state], ts);
	return 0;
}

static int log_stats(void *ctx, const struct trace_stats *st)
{
	struct sink_log *l = ctx;

	l->st = *st;
	log_add(l, "S");
	for (size_t i = 0; i < trace_stat_nfields; i++)
		if (trace_stats__get(st, i))
			log_add(l, " %s=%" PRIu64, trace_stat_fields[i].name,
				trace_stats__get(st, i));
	log_add(l, "\n");
	return 0;
}

static int log_finish(void *ctx)
{
	log_add(ctx, "F\n");
	return 0;
}

static const struct frame_sink_ops sink_log_ops = {
	.thread = log_thread,
	.enter = log_enter,
	.leave = log_leave,
	.elided = log_elided,
	.stats = log_stats,
	.finish = log_finish,
	.thread_end = log_thread_end,
	.sched = log_sched,
};

static inline struct frame_sink sink_log__sink(struct sink_log *l)
{
	memset(l, 0, sizeof(*l));
	return (struct frame_sink){ .ops = &sink_log_ops, .ctx = l };
}

#endif
