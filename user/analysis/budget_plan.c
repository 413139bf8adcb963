// SPDX-License-Identifier: MIT
/* budget_plan.c: see budget_plan.h.  The profile is read through the one
 * reader into a sink that only counts: calls per function, the time of
 * the threads' outermost frames, and the shortest gap between a return
 * and the next call on one thread (the probes' cost outside the two
 * timestamps, when the trace carries no measure of its own). */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/budget_plan.h"
#include "format/perfetto/perfetto_reader.h"
#include "model/probe_comp.h"

struct fn_count {
	char *object; /* file name */
	char *name;
	uint64_t calls;
};

struct profile {
	struct fn_count *fns; /* by trace function id */
	size_t nfns;
	uint64_t *last_exit; /* by thread index: its last measured return, 0 none */
	size_t nthreads;
	uint64_t min_gap; /* UINT64_MAX: none seen */
	uint64_t root_ns, root_cpu_ns;
	struct trace_stats st;
};

static int grow(void **v, size_t *n, size_t want, size_t size)
{
	void *w;

	if (want < *n)
		return 0;
	w = realloc(*v, (want + 1) * 2 * size);
	if (!w)
		return -ENOMEM;
	memset((char *)w + *n * size, 0, ((want + 1) * 2 - *n) * size);
	*v = w;
	*n = (want + 1) * 2;
	return 0;
}

/* A name two objects share is written "f [libx.so]" (objects.h): the
 * budget keys it by object already. */
static void strip_object(char *name, const char *object)
{
	size_t n = strlen(name), k = strlen(object);

	if (k && n > k + 3 && name[n - 1] == ']' && !strncmp(name + n - k - 3, " [", 2) &&
	    !strncmp(name + n - k - 1, object, k))
		name[n - k - 3] = 0;
}

static int pf_function(void *ctx, const struct trace_function *fn)
{
	struct profile *p = ctx;
	const char *slash = fn->object ? strrchr(fn->object, '/') : NULL;
	struct fn_count *f;

	if (grow((void **)&p->fns, &p->nfns, fn->id, sizeof(*p->fns)))
		return -ENOMEM;
	f = &p->fns[fn->id];
	if (f->name)
		return 0;
	f->object = strdup(slash ? slash + 1 : fn->object ? fn->object : "");
	f->name = strdup(fn->name ? fn->name : "");
	if (!f->object || !f->name)
		return -ENOMEM;
	strip_object(f->name, f->object);
	return 0;
}

static int pf_enter(void *ctx, const struct trace_thread *th, const struct frame *stack,
		    uint32_t depth)
{
	struct profile *p = ctx;
	const struct frame *f = &stack[depth - 1];

	if (f->fid < p->nfns)
		p->fns[f->fid].calls++;
	if (grow((void **)&p->last_exit, &p->nthreads, th->index, sizeof(*p->last_exit)))
		return -ENOMEM;
	if (p->last_exit[th->index] && f->begin_ns >= p->last_exit[th->index] &&
	    f->begin_ns - p->last_exit[th->index] < p->min_gap)
		p->min_gap = f->begin_ns - p->last_exit[th->index];
	p->last_exit[th->index] = 0;
	return 0;
}

static int pf_leave(void *ctx, const struct trace_thread *th, const struct frame *stack,
		    uint32_t depth, uint64_t end_ns, enum frame_end how)
{
	struct profile *p = ctx;

	if (grow((void **)&p->last_exit, &p->nthreads, th->index, sizeof(*p->last_exit)))
		return -ENOMEM;
	p->last_exit[th->index] = how == FRAME_RETURNED ? end_ns : 0;
	if (depth == 1 && end_ns >= stack[0].begin_ns) {
		p->root_ns += end_ns - stack[0].begin_ns;
		p->root_cpu_ns += stack[0].cpu_ns;
	}
	return 0;
}

static int pf_elided(void *ctx, const struct trace_thread *th, uint32_t fid, uint64_t calls,
		     uint64_t total_ns)
{
	struct profile *p = ctx;

	(void)th;
	(void)total_ns;
	if (fid < p->nfns)
		p->fns[fid].calls += calls;
	return 0;
}

static int pf_stats(void *ctx, const struct trace_stats *st)
{
	((struct profile *)ctx)->st = *st;
	return 0;
}

static const struct frame_sink_ops profile_ops = {
	.function = pf_function,
	.enter = pf_enter,
	.leave = pf_leave,
	.elided = pf_elided,
	.stats = pf_stats,
};

static void profile_free(struct profile *p)
{
	for (size_t i = 0; i < p->nfns; i++) {
		free(p->fns[i].object);
		free(p->fns[i].name);
	}
	free(p->fns);
	free(p->last_exit);
}

/* A stats field by name, 0 when this build's trace_stats lacks it. */
static uint64_t stat_named(const struct trace_stats *st, const char *name)
{
	for (size_t i = 0; i < trace_stat_nfields; i++)
		if (!strcmp(trace_stat_fields[i].name, name))
			return trace_stats__get(st, i);
	return 0;
}

/* One call's probe cost: the trace's measure of an entry and an exit hit
 * when it has one; else the shortest leaf (the cost between the two
 * timestamps) and the shortest return-to-call gap (the cost outside
 * them, plus whatever the caller did between: an upper bound). */
static uint64_t call_cost(const struct profile *p)
{
	uint64_t entry = stat_named(&p->st, "probe_entry_ns");
	uint64_t exit = stat_named(&p->st, "probe_exit_ns");
	uint64_t inside = comp__cost(p->st.probe_cost_ns);

	if (entry && exit)
		return entry + exit;
	if (inside && p->min_gap <= COMP_MAX_PROBE_COST_NS)
		return inside + p->min_gap;
	return 2 * inside;
}

static int by_calls(const void *a, const void *b)
{
	const struct fn_count *x = a, *y = b;

	if (x->calls != y->calls)
		return x->calls < y->calls ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int by_key(const void *a, const void *b)
{
	const struct fn_count *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : strcmp(x->object, y->object);
}

/* The functions the profiles saw called, each once with its most calls
 * in any of them, fewest calls first.  The strings stay the profiles'. */
static struct fn_count *called(struct profile *p, size_t np, size_t *n)
{
	size_t cap = 1, k = 0, w = 0;
	struct fn_count *v;

	for (size_t j = 0; j < np; j++)
		cap += p[j].nfns;
	if (!(v = calloc(cap, sizeof(*v))))
		return NULL;
	for (size_t j = 0; j < np; j++)
		for (size_t i = 0; i < p[j].nfns; i++)
			if (p[j].fns[i].calls && p[j].fns[i].name)
				v[k++] = p[j].fns[i];
	qsort(v, k, sizeof(*v), by_key);
	for (size_t i = 0; i < k; i++) {
		if (w && !by_key(&v[w - 1], &v[i])) {
			if (v[i].calls > v[w - 1].calls)
				v[w - 1].calls = v[i].calls;
			continue;
		}
		v[w++] = v[i];
	}
	qsort(v, w, sizeof(*v), by_calls);
	*n = w;
	return v;
}

static void note_hottest(struct budget_summary *sum, const struct fn_count *f)
{
	for (int i = 0; i < BUDGET_PLAN_HOTTEST; i++) {
		if (sum->hottest[i][0] && sum->hottest_calls[i] >= f->calls)
			continue;
		memmove(&sum->hottest[i + 1], &sum->hottest[i],
			(BUDGET_PLAN_HOTTEST - 1 - i) * sizeof(sum->hottest[0]));
		memmove(&sum->hottest_calls[i + 1], &sum->hottest_calls[i],
			(BUDGET_PLAN_HOTTEST - 1 - i) * sizeof(sum->hottest_calls[0]));
		snprintf(sum->hottest[i], sizeof(sum->hottest[i]), "%s", f->name);
		sum->hottest_calls[i] = f->calls;
		return;
	}
}

/* Does another object of v[0..n) have f's name? */
static bool name_shared(const struct fn_count *v, size_t n, const struct fn_count *f)
{
	for (size_t i = 0; i < n; i++)
		if (&v[i] != f && !strcmp(v[i].name, f->name))
			return true;
	return false;
}

/* Fewest calls first while they fit; the rest into b. */
static int choose(struct profile *p, size_t np, struct budget *b, struct budget_summary *sum)
{
	size_t n;
	struct fn_count *v = called(p, np, &n);
	uint64_t allowed = (uint64_t)(sum->share * (double)sum->program_ns), spent = 0;
	int err = 0;

	if (!v)
		return -ENOMEM;
	sum->min_calls = n ? v[0].calls : 0;
	for (size_t i = 0; i < n && !err; i++) {
		uint64_t cost = v[i].calls * sum->call_cost_ns;

		sum->calls += v[i].calls;
		sum->functions++;
		if (!sum->left_functions && spent + cost <= allowed) {
			spent += cost;
			continue;
		}
		sum->left_functions++;
		sum->left_calls += v[i].calls;
		note_hottest(sum, &v[i]);
		/* by name alone unless two objects have it: another build's
		 * executable may be named differently (bench's base and head) */
		err = budget__leave_out(b, name_shared(v, n, &v[i]) ? v[i].object : "", v[i].name);
	}
	free(v);
	return err;
}

/* The profile's program time, probes included: its measured CPU time,
 * else its outermost frames'. */
static uint64_t traced_time(const struct profile *p)
{
	uint64_t t = p->st.program_cpu_ns ? p->st.program_cpu_ns : p->root_cpu_ns;

	return t ? t : p->root_ns;
}

/* T and C.  Measured untraced, T gives C as the profile's excess per
 * call, unless the probes cost less than the run's own noise.  Without
 * it, T is the profile's time less the best-case cost of its calls, never
 * below a hundredth of it (a cost overestimated that far says nothing). */
static void time_and_cost(const struct profile *p, uint64_t untraced, uint64_t calls,
			  struct budget_summary *sum)
{
	uint64_t best = call_cost(p), traced = traced_time(p);

	sum->traced_ns = traced;
	sum->call_cost_ns = best;
	if (untraced) {
		sum->program_ns = untraced;
		sum->measured = 1;
		if (calls && traced > untraced + untraced / 10 &&
		    (traced - untraced) / calls > best)
			sum->call_cost_ns = (traced - untraced) / calls;
		return;
	}
	sum->program_ns = calls * best < traced - traced / 100 ? traced - calls * best
							       : traced / 100;
}

static uint64_t total_calls(const struct profile *p)
{
	uint64_t n = 0;

	for (size_t i = 0; i < p->nfns; i++)
		n += p->fns[i].calls;
	return n;
}

/* Reads every profile; err says what is wrong with the first bad one. */
static int read_profiles(const char *const *paths, size_t n, struct profile *p, char *err,
			 size_t errlen)
{
	int rc = 0;

	for (size_t i = 0; i < n && !rc; i++) {
		struct frame_sink sink = { &profile_ops, &p[i] };

		p[i].min_gap = UINT64_MAX;
		rc = perfetto_reader__read(paths[i], &sink, err, errlen);
		if (!rc && p[i].st.budget_ppm) {
			snprintf(
				err, errlen,
				"%s was recorded with --budget: the functions it left unprobed have no "
				"counts in it; plan from a recording without --budget",
				paths[i]);
			rc = -EINVAL;
		}
	}
	return rc;
}

int budget_plan__make(const char *const *paths, size_t npaths, double share, uint64_t untraced_ns,
		      struct budget **out, struct budget_summary *sum, char *err, size_t errlen)
{
	struct profile *p = calloc(npaths ? npaths : 1, sizeof(*p));
	int rc = p ? read_profiles(paths, npaths, p, err, errlen) : -ENOMEM;

	*out = NULL;
	memset(sum, 0, sizeof(*sum));
	sum->share = share;
	if (!rc) {
		/* the first profile is the program's (bench: the base build) */
		time_and_cost(&p[0], untraced_ns, total_calls(&p[0]), sum);
		if (!sum->call_cost_ns || !sum->program_ns) {
			snprintf(err, errlen, "%s: %s", paths[0],
				 sum->program_ns ? "no measure of the probe cost in it"
						 : "no traced call in it");
			rc = -ENODATA;
		}
	}
	if (!rc && !(rc = budget__new(out)))
		rc = choose(p, npaths, *out, sum);
	if (rc == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	if (!rc && sum->functions && sum->left_functions == sum->functions) {
		snprintf(err, errlen,
			 "--budget=%g%% leaves every function unprobed (the least called alone "
			 "needs %.3g%% of the program's %.3f ms): give a larger budget",
			 share * 100,
			 100.0 * (double)(sum->min_calls * sum->call_cost_ns) /
				 (double)sum->program_ns,
			 (double)sum->program_ns / 1e6);
		rc = -E2BIG;
	}
	if (rc) {
		budget__free(*out);
		*out = NULL;
	} else {
		budget__seal(*out);
	}
	for (size_t i = 0; p && i < npaths; i++)
		profile_free(&p[i]);
	free(p);
	return rc;
}

void budget_plan__describe(const struct budget_summary *sum, char *buf, size_t len)
{
	int n = snprintf(buf, len,
			 "budget %g%%: %" PRIu64 " of %" PRIu64
			 " called functions left unprobed (%" PRIu64
			 " calls; probes ~%.2f us a call, program %.1f ms): their time is in their "
			 "callers' self time",
			 sum->share * 100, sum->left_functions, sum->functions, sum->left_calls,
			 (double)sum->call_cost_ns / 1e3, (double)sum->program_ns / 1e6);

	for (int i = 0; i < BUDGET_PLAN_HOTTEST && sum->hottest[i][0] && n > 0 && (size_t)n < len;
	     i++)
		n += snprintf(buf + n, len - (size_t)n, "%s%s (%" PRIu64 ")",
			      i ? ", " : "; hottest: ", sum->hottest[i], sum->hottest_calls[i]);
}
