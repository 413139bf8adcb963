// SPDX-License-Identifier: MIT
/* probe_note.c: see probe_note.h. */
#include <inttypes.h>
#include <stdint.h>

#include "model/probe_comp.h"
#include "object/symbols.h"
#include "record/probe_note.h"

#define TOP 3

/* The name of trace function fid, from the object it belongs to. */
static const char *name_of(const struct object_set *objs, uint32_t fid)
{
	for (size_t i = 0; i < object_set__count(objs); i++) {
		const struct traced_object *o = object_set__get((struct object_set *)objs, i);

		if (fid > o->fid_base && fid - o->fid_base <= o->map->nfuncs)
			return symbols__get(o->syms, fid - o->fid_base)->name;
	}
	return "?";
}

/* Inserts (fid, ns) into the descending top list. */
static void keep_top(uint32_t top[TOP], uint64_t ns_top[TOP], uint32_t fid, uint64_t ns)
{
	for (int i = 0; i < TOP; i++) {
		if (ns <= ns_top[i])
			continue;
		for (int j = TOP - 1; j > i; j--) {
			top[j] = top[j - 1];
			ns_top[j] = ns_top[j - 1];
		}
		top[i] = fid;
		ns_top[i] = ns;
		return;
	}
}

void probe_note__say(const struct object_set *objs, const struct frame_builder *fb,
		     const struct trace_stats *st, FILE *f)
{
	struct comp_cost c = comp__costs(st->probe_cost_ns, st->probe_entry_ns, st->probe_exit_ns);
	const uint64_t *calls, *children;
	size_t n = frame_builder__tallies(fb, &calls, &children);
	uint32_t top[TOP] = { 0 };
	uint64_t ns_top[TOP] = { 0 }, all = 0, ncalls = 0;
	double share;

	if (!c.inside_ns || !st->program_cpu_ns)
		return;
	for (size_t fid = 0; fid < n; fid++) {
		struct comp_frame one = { 1, 0 };
		uint64_t self;

		if (!calls[fid])
			continue;
		/* calls x (I + k (C - I)), summed: I per call, C - I per child */
		self = calls[fid] * comp__in_self(&c, one) +
		       children[fid] * (c.call_ns - c.inside_ns);
		keep_top(top, ns_top, (uint32_t)fid, self);
		ncalls += calls[fid];
	}
	all = ncalls * c.call_ns; /* every call's entry and exit, whole */
	share = (double)all / (double)st->program_cpu_ns;
	if (share < PROBE_NOTE_SHARE)
		return;
	fprintf(f,
		"sledtrace: probes took ~%.0f%% of the program's CPU time (%" PRIu64
		" calls x %" PRIu64 " ns), the most in the self time of ",
		share > 1 ? 100.0 : share * 100, ncalls, c.call_ns);
	for (int i = 0; i < TOP && ns_top[i]; i++)
		fprintf(f, "%s%s", i ? ", " : "", name_of(objs, top[i]));
	fputs(": their times are mostly probe cost; record --budget=5% gives real times, counts "
	      "stay exact\n",
	      f);
}
