// SPDX-License-Identifier: MIT
/* pprof.c: see pprof.h.  Field numbers are perftools.profiles' (docs/
 * exports.md lists the subset).  The Profile is written field by field
 * into the gzip stream, samples as the call tree is walked; only the
 * string table (names, labels) is kept until the end, where it is written
 * whole - a protobuf reader appends repeated fields in file order. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "format/codec/pbuf.h"
#include "format/pprof.h"
#include "format/stats_line.h"
#include "format/strtab.h"
#include "model/frame_costs.h"
#include "model/probe_comp.h"
#include "format/codec/gzout.h"

enum { /* Profile */
       P_SAMPLE_TYPE = 1,
       P_SAMPLE = 2,
       P_MAPPING = 3,
       P_LOCATION = 4,
       P_FUNCTION = 5,
       P_STRING_TABLE = 6,
       P_DURATION_NANOS = 10,
       P_PERIOD_TYPE = 11,
       P_PERIOD = 12,
       P_COMMENT = 13,
       P_DEFAULT_SAMPLE_TYPE = 14,
};

#define FLUSH_AT (256u << 10)

/* record --costs: a sample type per cost kind, after calls and wall, each
 * the path's self count.  The allocations are named as Go's heap profiles
 * name theirs, so `-sample_index=alloc_space` reads as it does there. */
static const struct {
	const char *type, *unit;
} cost_types[COST_NKINDS] = {
	[COST_ALLOCS] = { "alloc_objects", "count" },
	[COST_ALLOC_BYTES] = { "alloc_space", "bytes" },
	[COST_FREES] = { "frees", "count" },
	[COST_SYSCALLS] = { "syscalls", "count" },
	[COST_PAGE_FAULTS] = { "page_faults", "count" },
	[COST_VOLUNTARY_SWITCHES] = { "voluntary_switches", "count" },
};

struct pp {
	const struct calltree *ct;
	struct gzout *gz;
	struct strtab *strs;
	struct strtab *objects; /* mapping id - 1 -> object path */
	struct pbuf out, msg, sub;
	uint64_t *stack; /* location ids, leaf first */
	size_t stackcap;
	uint32_t elided_id; /* function/location id of the elided pseudo-frame */
	bool costs;	    /* the cost sample types are written */
	int err;
};

static uint64_t str(struct pp *p, const char *s)
{
	int64_t i = strtab__intern(p->strs, s ? s : "");

	if (i < 0) {
		p->err = (int)i;
		return 0;
	}
	return (uint64_t)i;
}

/* Appends p->msg as field `field` of the Profile, flushing when large. */
static void emit(struct pp *p, uint32_t field)
{
	pbuf__bytes(&p->out, field, p->msg.p, p->msg.len);
	pbuf__reset(&p->msg);
	if (!p->err && p->out.err)
		p->err = p->out.err;
	if (!p->err && p->out.len >= FLUSH_AT) {
		p->err = gzout__write(p->gz, p->out.p, p->out.len);
		pbuf__reset(&p->out);
	}
}

static void value_type(struct pp *p, uint32_t field, const char *type, const char *unit)
{
	pbuf__uint(&p->msg, 1, str(p, type));
	pbuf__uint(&p->msg, 2, str(p, unit));
	emit(p, field);
}

static void header(struct pp *p)
{
	const struct trace_stats *st = calltree__stats(p->ct);
	uint64_t first, last;
	char line[STATS_LINE_MAX], times[64];

	str(p, ""); /* string_table[0] must be "" */
	value_type(p, P_SAMPLE_TYPE, "calls", "count");
	value_type(p, P_SAMPLE_TYPE, "wall", "nanoseconds");
	/* the tree is whole before anything is written: whether the trace has
	 * costs is known here, though its stats came last */
	p->costs = calltree__has_costs(p->ct);
	for (int k = 0; p->costs && k < COST_NKINDS; k++)
		value_type(p, P_SAMPLE_TYPE, cost_types[k].type, cost_types[k].unit);
	value_type(p, P_PERIOD_TYPE, "wall", "nanoseconds");
	pbuf__uint(&p->out, P_PERIOD, 1);
	pbuf__uint(&p->out, P_DEFAULT_SAMPLE_TYPE, str(p, "wall"));
	calltree__span(p->ct, &first, &last);
	pbuf__uint(&p->out, P_DURATION_NANOS, last - first);
	stats_line__format(st, line, sizeof(line));
	pbuf__uint(&p->out, P_COMMENT, str(p, "sledtrace: exact call counts, not sampled"));
	pbuf__uint(&p->out, P_COMMENT, str(p, line));
	/* wall is compensated or not: `go tool pprof -comments` says which */
	snprintf(times, sizeof(times), "times=%s", comp__times_name(calltree__compensated(p->ct)));
	pbuf__uint(&p->out, P_COMMENT, str(p, times));
}

/* The mapping id of an object path: 1-based, first seen first. */
static uint64_t mapping_of(struct pp *p, const char *object)
{
	int64_t i = strtab__intern(p->objects, object);

	if (i < 0) {
		p->err = (int)i;
		return 0;
	}
	return (uint64_t)i + 1;
}

/* One mapping per object the functions come from (path, build id); a
 * function whose object the trace does not name maps to the program
 * (the first thread's process name). */
static void mappings(struct pp *p)
{
	const struct trace_thread *t = calltree__thread(p->ct, 0);
	const char *prog = t && t->process_name && t->process_name[0] ? t->process_name
								      : "[traced]";
	uint32_t max = calltree__max_fid(p->ct);
	const char **build_ids;

	mapping_of(p, prog);
	for (uint32_t fid = 1; fid <= max; fid++) {
		const struct trace_function *fn = calltree__function(p->ct, fid);

		if (fn && fn->object && fn->object[0])
			mapping_of(p, fn->object);
	}
	if (p->err || !(build_ids = calloc(strtab__count(p->objects), sizeof(*build_ids)))) {
		p->err = p->err ? p->err : -ENOMEM;
		return;
	}
	for (uint32_t fid = 1; fid <= max; fid++) {
		const struct trace_function *fn = calltree__function(p->ct, fid);

		if (fn && fn->object && fn->object[0] && fn->build_id)
			build_ids[mapping_of(p, fn->object) - 1] = fn->build_id;
	}
	for (size_t i = 0; i < strtab__count(p->objects) && !p->err; i++) {
		pbuf__uint(&p->msg, 1, i + 1);
		pbuf__uint(&p->msg, 5, str(p, strtab__get(p->objects, i)));
		pbuf__uint(&p->msg, 6, str(p, build_ids[i] ? build_ids[i] : ""));
		pbuf__uint(&p->msg, 7, 1); /* has_functions */
		emit(p, P_MAPPING);
	}
	free(build_ids);
}

static void function(struct pp *p, uint64_t id, const struct trace_function *fn)
{
	const char *name = fn ? fn->name : calltree__name(p->ct, CALLTREE_ELIDED);
	uint32_t line = fn ? fn->line : 0;

	pbuf__uint(&p->msg, 1, id);
	pbuf__uint(&p->msg, 2, str(p, name));
	pbuf__uint(&p->msg, 3, str(p, fn && fn->mangled ? fn->mangled : name));
	pbuf__uint(&p->msg, 4, str(p, fn ? fn->file : NULL));
	pbuf__uint(&p->msg, 5, line);
	emit(p, P_FUNCTION);

	/* One location per function: calls are exact, not addresses. */
	pbuf__uint(&p->sub, 1, id);
	pbuf__uint(&p->sub, 2, line);
	pbuf__uint(&p->msg, 1, id);
	pbuf__uint(&p->msg, 2, fn && fn->object && fn->object[0] ? mapping_of(p, fn->object) : 1);
	pbuf__bytes(&p->msg, 4, p->sub.p, p->sub.len);
	pbuf__reset(&p->sub);
	emit(p, P_LOCATION);
}

static void functions(struct pp *p)
{
	uint32_t max = calltree__max_fid(p->ct);

	for (uint32_t fid = 1; fid <= max; fid++) {
		const struct trace_function *fn = calltree__function(p->ct, fid);

		if (fn)
			function(p, fid, fn);
	}
	p->elided_id = max + 1;
	function(p, p->elided_id, NULL);
}

static void label_str(struct pp *p, const char *key, const char *val)
{
	pbuf__uint(&p->sub, 1, str(p, key));
	pbuf__uint(&p->sub, 2, str(p, val));
	pbuf__bytes(&p->msg, 3, p->sub.p, p->sub.len);
	pbuf__reset(&p->sub);
}

static void label_num(struct pp *p, const char *key, uint64_t val)
{
	pbuf__uint(&p->sub, 1, str(p, key));
	pbuf__uint(&p->sub, 3, val);
	pbuf__bytes(&p->msg, 3, p->sub.p, p->sub.len);
	pbuf__reset(&p->sub);
}

/* Location ids of node i's path, leaf first; returns the thread root's
 * thread index, or -1 when the path is not under one. */
static long path_of(struct pp *p, size_t i, size_t *n)
{
	*n = 0;
	for (; i; i = calltree__node(p->ct, i)->parent) {
		uint32_t fid = calltree__node(p->ct, i)->fid;

		if (fid != CALLTREE_ELIDED && (fid & CALLTREE_THREAD_ROOT))
			return (long)(fid & ~CALLTREE_THREAD_ROOT);
		if (*n == p->stackcap) {
			size_t cap = p->stackcap ? p->stackcap * 2 : 64;
			uint64_t *v = realloc(p->stack, cap * sizeof(*v));

			if (!v) {
				p->err = -ENOMEM;
				return -1;
			}
			p->stack = v;
			p->stackcap = cap;
		}
		p->stack[(*n)++] = fid == CALLTREE_ELIDED ? p->elided_id : fid;
	}
	return -1;
}

static void sample(struct pp *p, size_t i)
{
	const struct calltree_node *node = calltree__node(p->ct, i);
	const uint64_t *costs = calltree__costs(p->ct, i);
	uint64_t values[2 + COST_NKINDS] = { node->calls, node->self_ns };
	const struct trace_thread *t;
	size_t n;
	long th;

	if ((node->fid != CALLTREE_ELIDED && (node->fid & CALLTREE_THREAD_ROOT)) ||
	    (!node->calls && !node->self_ns))
		return;
	th = path_of(p, i, &n);
	pbuf__packed(&p->msg, 1, p->stack, n);
	for (int k = 0; costs && k < COST_NKINDS; k++)
		values[2 + k] = costs[k];
	pbuf__packed(&p->msg, 2, values, p->costs ? 2 + COST_NKINDS : 2);
	if (th >= 0 && (t = calltree__thread(p->ct, (size_t)th))) {
		label_str(p, "thread", t->name);
		label_num(p, "tid", t->tid);
		label_str(p, "process", t->process_name);
		label_num(p, "pid", t->pid);
	}
	emit(p, P_SAMPLE);
}

static void string_table(struct pp *p)
{
	for (size_t i = 0; i < strtab__count(p->strs) && !p->err; i++) {
		pbuf__str(&p->out, P_STRING_TABLE, strtab__get(p->strs, i));
		if (p->out.len >= FLUSH_AT) {
			p->err = gzout__write(p->gz, p->out.p, p->out.len);
			pbuf__reset(&p->out);
		}
	}
}

static int write_all(struct pp *p)
{
	header(p);
	mappings(p);
	functions(p);
	for (size_t i = 1; i < calltree__count(p->ct) && !p->err; i++)
		sample(p, i);
	string_table(p);
	if (!p->err)
		p->err = p->out.err ? p->out.err : p->msg.err ? p->msg.err : p->sub.err;
	if (!p->err)
		p->err = gzout__write(p->gz, p->out.p, p->out.len);
	if (!p->err)
		p->err = gzout__finish(p->gz);
	return p->err;
}

int pprof__write(const struct calltree *ct, FILE *f)
{
	struct pp p = { .ct = ct };
	int err;

	if (!(p.strs = strtab__new()) || !(p.objects = strtab__new())) {
		strtab__free(p.strs);
		return -ENOMEM;
	}
	err = gzout__new(byte_sink__file(f), 6, &p.gz);
	if (!err)
		err = write_all(&p);
	gzout__free(p.gz);
	strtab__free(p.strs);
	strtab__free(p.objects);
	pbuf__free(&p.out);
	pbuf__free(&p.msg);
	pbuf__free(&p.sub);
	free(p.stack);
	return err;
}
