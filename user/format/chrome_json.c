// SPDX-License-Identifier: MIT
/* chrome_json.c: see chrome_json.h.  Events are written as frames enter
 * and leave, so memory is the function names only.  The first frame's
 * start is the time origin; a thread whose sequence comes later in the
 * file may start earlier, so ts can be negative (the format allows it).
 * Calls a writer elided and the trace's stats go into "otherData". */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "arch/syscall_names.h"
#include "format/chrome_json.h"
#include "format/text_out.h"
#include "model/probe_comp.h"
#include "format/stats_line.h"
#include "util/num_text.h"
#include "util/u64map.h"

struct chrome_json {
	FILE *f;
	char **names; /* by fid */
	uint32_t nnames;
	struct u64map pids; /* pid + 1 -> 1 once its name is written */
	bool have_origin, first_event;
	uint64_t origin;
	uint64_t elided_calls;
	struct trace_stats st;
};

static int cj_function(void *ctx, const struct trace_function *fn)
{
	struct chrome_json *cj = ctx;

	if (fn->id >= cj->nnames) {
		uint32_t n = fn->id + 64;
		char **v = realloc(cj->names, n * sizeof(*v));

		if (!v)
			return -ENOMEM;
		memset(v + cj->nnames, 0, (n - cj->nnames) * sizeof(*v));
		cj->names = v;
		cj->nnames = n;
	}
	free(cj->names[fn->id]);
	cj->names[fn->id] = text_out__json_quote(fn->name ? fn->name : "?");
	return cj->names[fn->id] ? 0 : -ENOMEM;
}

static const char *name_of(const struct chrome_json *cj, uint32_t fid)
{
	return fid < cj->nnames && cj->names[fid] ? cj->names[fid] : "\"?\"";
}

static void sep(struct chrome_json *cj)
{
	fputs(cj->first_event ? "\n" : ",\n", cj->f);
	cj->first_event = false;
}

static void meta(struct chrome_json *cj, const char *what, uint32_t pid, uint32_t tid,
		 const char *name)
{
	sep(cj);
	fprintf(cj->f,
		"{\"ph\":\"M\",\"name\":\"%s\",\"pid\":%" PRIu32 ",\"tid\":%" PRIu32
		",\"args\":{\"name\":",
		what, pid, tid);
	text_out__json(cj->f, name ? name : "");
	fputs("}}", cj->f);
}

static int cj_thread(void *ctx, const struct trace_thread *th)
{
	struct chrome_json *cj = ctx;

	if (!u64map__find(&cj->pids, (uint64_t)th->pid + 1)) {
		if (u64map__put(&cj->pids, (uint64_t)th->pid + 1, 1))
			return -ENOMEM;
		meta(cj, "process_name", th->pid, th->pid, th->process_name);
	}
	meta(cj, "thread_name", th->pid, th->tid, th->name);
	return ferror(cj->f) ? -EIO : 0;
}

/* ts in microseconds with three decimals, from integer nanoseconds. */
static size_t append_ts(struct chrome_json *cj, char *p, uint64_t ns)
{
	size_t n = 0;
	uint64_t d;

	if (!cj->have_origin) {
		cj->origin = ns;
		cj->have_origin = true;
	}
	if (ns >= cj->origin) {
		d = ns - cj->origin;
	} else {
		d = cj->origin - ns;
		p[n++] = '-';
	}
	n += num_text__u64(p + n, d / 1000);
	p[n++] = '.';
	p[n++] = (char)('0' + d / 100 % 10);
	p[n++] = (char)('0' + d / 10 % 10);
	p[n++] = (char)('0' + d % 10);
	return n;
}

/* One member of an E event's args: a comma before all but the first. */
static void arg_key(struct chrome_json *cj, bool *first, const char *key)
{
	if (!*first)
		fputc(',', cj->f);
	*first = false;
	text_out__json(cj->f, key);
	fputc(':', cj->f);
}

/* record --costs: the call's own counts by name ("allocs", ...), its
 * inclusive ones as NAME_total where its callees spent some too, and its
 * own system calls as "syscall.NAME" - the names of the trace's own
 * annotations (perfetto_costs.c), none that is 0, for the viewers sum no
 * args over a slice's children. */
static void cost_args(struct chrome_json *cj, bool *first, const struct frame_costs *c)
{
	char key[64];
	const char *s;

	for (int k = 0; k < COST_NKINDS; k++) {
		if (c->self[k]) {
			arg_key(cj, first, cost_names[k]);
			fprintf(cj->f, "%" PRIu64, c->self[k]);
		}
		if (c->total[k] != c->self[k]) {
			snprintf(key, sizeof(key), "%s_total", cost_names[k]);
			arg_key(cj, first, key);
			fprintf(cj->f, "%" PRIu64, c->total[k]);
		}
	}
	for (uint32_t i = 0; i < c->nsyscalls; i++) {
		if (!c->syscalls[i].count)
			continue;
		if ((s = syscall_name(c->syscalls[i].nr)))
			snprintf(key, sizeof(key), "syscall.%s", s);
		else
			snprintf(key, sizeof(key), "syscall.nr_%" PRIu32, c->syscalls[i].nr);
		arg_key(cj, first, key);
		fprintf(cj->f, "%" PRIu64, c->syscalls[i].count);
	}
}

/* An E event's args: how the frame ended when it did not return, its
 * captured values (record --capture) as "args.NAME" and "return", and
 * what it spent (record --costs). */
static void end_args(struct chrome_json *cj, const char *end, const struct frame_values *v,
		     const struct frame_costs *costs)
{
	bool first = true;
	char num[32];

	fputs(",\"args\":{", cj->f);
	if (end) {
		arg_key(cj, &first, "end");
		text_out__json(cj->f, end);
	}
	for (uint32_t i = 0; v && i < v->n; i++) {
		const struct trace_value *tv = &v->v[i];
		char key[256];

		snprintf(key, sizeof(key), "%s%s", strcmp(tv->name, VALUE_RETURN) ? "args." : "",
			 tv->name);
		arg_key(cj, &first, key);
		if (tv->kind == VALUE_INT || tv->kind == VALUE_UINT || tv->kind == VALUE_BOOL)
			fputs(value__format(tv->kind, tv->raw, num, sizeof(num)), cj->f);
		else
			text_out__json(cj->f, tv->text);
	}
	if (costs)
		cost_args(cj, &first, costs);
	fputc('}', cj->f);
}

/* One B or E event, formatted by hand: this is most of the output. */
static void event(struct chrome_json *cj, const struct trace_thread *th, uint32_t fid, char ph,
		  uint64_t ns, const char *end, const struct frame_values *values,
		  const struct frame_costs *costs)
{
	static const char mid[] = ",\"cat\":\"function\",\"ph\":\"";
	const char *name = name_of(cj, fid);
	char buf[160];
	size_t n = 0;

	sep(cj);
	fputs("{\"name\":", cj->f);
	fputs(name, cj->f);
	memcpy(buf, mid, sizeof(mid) - 1);
	n = sizeof(mid) - 1;
	buf[n++] = ph;
	memcpy(buf + n, "\",\"ts\":", 7);
	n += 7;
	n += append_ts(cj, buf + n, ns);
	memcpy(buf + n, ",\"pid\":", 7);
	n += 7;
	n += num_text__u64(buf + n, th->pid);
	memcpy(buf + n, ",\"tid\":", 7);
	n += 7;
	n += num_text__u64(buf + n, th->tid);
	if ((values && values->n) || (costs && frame_costs__any(costs))) {
		fwrite(buf, 1, n, cj->f);
		end_args(cj, end, values, costs);
		fputc('}', cj->f);
		return;
	}
	if (end) {
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, ",\"args\":{\"end\":\"%s\"}", end);
	}
	buf[n++] = '}';
	fwrite(buf, 1, n, cj->f);
}

/* A flow's start ('s', inside the causing slice at ns) or end ('f', bound
 * to the slice that begins at ns: "bp":"e"), named for the cause's kind;
 * its id is the trace's flow id (model/frames.h). */
static void flow_event(struct chrome_json *cj, const struct trace_thread *th, char ph, uint64_t ns,
		       uint64_t flow, enum frame_cause kind)
{
	char ts[48];

	ts[append_ts(cj, ts, ns)] = 0;
	sep(cj);
	fprintf(cj->f,
		"{\"name\":\"%s\",\"cat\":\"cause\",\"ph\":\"%c\",%s\"id\":%" PRIu64
		",\"ts\":%s,\"pid\":%" PRIu32 ",\"tid\":%" PRIu32 "}",
		frame_cause_names[kind], ph, ph == 'f' ? "\"bp\":\"e\"," : "", flow, ts, th->pid,
		th->tid);
}

static int cj_enter(void *ctx, const struct trace_thread *th, const struct frame *stack,
		    uint32_t depth)
{
	struct chrome_json *cj = ctx;
	const struct frame *f = &stack[depth - 1];

	event(cj, th, f->fid, 'B', f->begin_ns, NULL, NULL, NULL);
	if (f->cause)
		flow_event(cj, th, 'f', f->begin_ns, f->flow, f->cause_kind);
	return ferror(cj->f) ? -EIO : 0;
}

static int cj_cause(void *ctx, const struct trace_thread *th, const struct frame *stack,
		    uint32_t depth, const struct cause_point *cp)
{
	struct chrome_json *cj = ctx;

	(void)stack;
	(void)depth;
	flow_event(cj, th, 's', cp->ts, cp->flow, cp->kind);
	return ferror(cj->f) ? -EIO : 0;
}

static int cj_leave(void *ctx, const struct trace_thread *th, const struct frame *stack,
		    uint32_t depth, uint64_t end_ns, enum frame_end how)
{
	static const char *const ends[] = { "returned", "tail", "inferred", "unfinished" };
	struct chrome_json *cj = ctx;
	uint64_t begin = stack[depth - 1].begin_ns;

	/* An end before its begin would break nesting: clamp. */
	event(cj, th, stack[depth - 1].fid, 'E', end_ns > begin ? end_ns : begin,
	      how != FRAME_RETURNED && (unsigned)how < 4 ? ends[how] : NULL,
	      stack[depth - 1].values, stack[depth - 1].costs);
	return ferror(cj->f) ? -EIO : 0;
}

static int cj_elided(void *ctx, const struct trace_thread *th, uint32_t fid, uint64_t calls,
		     uint64_t total_ns)
{
	(void)th;
	(void)fid;
	(void)total_ns;
	((struct chrome_json *)ctx)->elided_calls += calls;
	return 0;
}

static int cj_stats(void *ctx, const struct trace_stats *st)
{
	((struct chrome_json *)ctx)->st = *st;
	return 0;
}

static int cj_finish(void *ctx)
{
	struct chrome_json *cj = ctx;
	char line[STATS_LINE_MAX];

	stats_line__format(&cj->st, line, sizeof(line));
	fputs("\n],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":{\"tracer\":\"sledtrace\",\"stats\":",
	      cj->f);
	text_out__json(cj->f, line);
	/* ts and dur are the timeline's real timestamps: never compensated */
	fprintf(cj->f, ",\"elided_calls\":%" PRIu64 ",\"times\":\"%s\"}}\n", cj->elided_calls,
		COMP_TIMES_RAW);
	return ferror(cj->f) ? -EIO : 0;
}

static const struct frame_sink_ops cj_ops = {
	.function = cj_function,
	.thread = cj_thread,
	.enter = cj_enter,
	.cause = cj_cause,
	.leave = cj_leave,
	.elided = cj_elided,
	.stats = cj_stats,
	.finish = cj_finish,
};

int chrome_json__new(FILE *f, struct chrome_json **out)
{
	struct chrome_json *cj = calloc(1, sizeof(*cj));

	if (!cj)
		return -ENOMEM;
	cj->f = f;
	cj->first_event = true;
	fputs("{\"traceEvents\":[", f);
	*out = cj;
	return 0;
}

struct frame_sink chrome_json__sink(struct chrome_json *cj)
{
	return (struct frame_sink){ .ops = &cj_ops, .ctx = cj };
}

const struct trace_stats *chrome_json__stats(const struct chrome_json *cj)
{
	return &cj->st;
}

void chrome_json__free(struct chrome_json *cj)
{
	if (!cj)
		return;
	for (uint32_t i = 0; i < cj->nnames; i++)
		free(cj->names[i]);
	free(cj->names);
	u64map__clear(&cj->pids);
	free(cj);
}
