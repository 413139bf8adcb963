// SPDX-License-Identifier: MIT
/* perfetto_interp.c: applies trace_processor's rules to unpacked packets
 * (docs/FORMATS.md): a sequence is invalid until INCREMENTAL_STATE_CLEARED,
 * interned ids are per sequence and field, incremental clocks add deltas
 * in file order, events default to the sequence's track, an END pops the
 * innermost open slice (and is ignored when none is open), nesting beyond
 * 512 is dropped.  Names map to one dense function id per distinct name.
 * A sequence's clocks are perfetto_clock.c's; the slices of a thread's
 * state track are switches (perfetto_states.c), not calls. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "format/perfetto/perfetto_args.h"
#include "format/perfetto/perfetto_clock.h"
#include "format/perfetto/perfetto_costs.h"
#include "format/perfetto/perfetto_ident.h"
#include "format/perfetto/perfetto_interp.h"
#include "format/perfetto/perfetto_layout.h"
#include "format/perfetto/perfetto_states.h"
#include "model/trace_stats.h"
#include "util/u64map.h"

#define SEQ_CLEARED 1
#define SEQ_NEEDS 2

typedef Perfetto__Protos__TracePacket Packet;

struct pr_seq {
	bool valid;
	bool has_track;
	uint64_t def_track;
	struct u64map names; /* name iid -> function index */
	struct u64map locs;  /* source location iid -> loc index + 1 */
	struct perfetto_ident_seq ident;
	struct perfetto_clocks clocks;
};

struct pr_track {
	uint32_t pid, tid;
	bool thread;
	char *name;
	struct fb_thread *t;
};

struct pr_func {
	char *name;
	bool announced;
};

struct pr_loc {
	char *file;
	uint32_t line;
};

struct pr_proc {
	char *name, *cmdline;
};

struct perfetto_interp {
	struct u64map seq_idx, track_idx, proc_idx, func_idx;
	struct pr_seq *seqs;
	struct pr_track *tracks;
	struct pr_proc *procs;
	struct pr_func *funcs; /* index = function id - 1 */
	struct pr_loc *locs;
	size_t nseqs, ntracks, nprocs, nfuncs, nlocs;
	struct perfetto_ident *ident;
	struct perfetto_states *states;
	struct frame_builder *fb;
	struct trace_stats stats;
	uint64_t inferred_ends; /* END events marked exit_inferred */
	bool saw_meta, saw_stats;
};

/* ---- interning and tracks ---- */

static uint64_t name_hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	while (*s)
		h = (h ^ (uint8_t)*s++) * 1099511628211ULL;
	return h ? h : 1;
}

/* Function index (id - 1) for a name; names are the functions' identity. */
static int func_for_name(struct perfetto_interp *r, const char *name, uint64_t *out)
{
	uint64_t key = name_hash(name), idx;
	struct pr_func *f;

	while (u64map__get(&r->func_idx, key, &idx)) {
		if (!strcmp(r->funcs[idx].name, name)) {
			*out = idx;
			return 0;
		}
		key = key * 31 + 7; /* hash collision: probe on */
		key += !key;
	}
	if (!(f = realloc(r->funcs, (r->nfuncs + 1) * sizeof(*f))))
		return -ENOMEM;
	r->funcs = f;
	f[r->nfuncs] = (struct pr_func){ .name = strdup(name) };
	if (!f[r->nfuncs].name || u64map__put(&r->func_idx, key, r->nfuncs))
		return -ENOMEM;
	*out = r->nfuncs++;
	return 0;
}

/* id (may be NULL) gives mangled, object, build_id and addr. */
static int announce(struct perfetto_interp *r, uint64_t idx, const char *file, uint32_t line,
		    const struct trace_function *id)
{
	struct trace_function fn = { .id = (uint32_t)idx + 1,
				     .name = r->funcs[idx].name,
				     .file = file,
				     .line = file ? line : 0 };

	if (r->funcs[idx].announced)
		return 0;
	if (id) {
		fn.mangled = id->mangled;
		fn.object = id->object;
		fn.build_id = id->build_id;
		fn.addr = id->addr;
	}
	r->funcs[idx].announced = true;
	return frame_builder__function(r->fb, &fn);
}

static void seq_reset(struct pr_seq *s)
{
	u64map__clear(&s->names);
	u64map__clear(&s->locs);
	perfetto_ident__seq_reset(&s->ident);
	perfetto_clocks__reset(&s->clocks);
	*s = (struct pr_seq){ 0 };
}

static struct pr_seq *seq_get(struct perfetto_interp *r, uint32_t id)
{
	uint64_t idx;
	struct pr_seq *v;

	if (u64map__get(&r->seq_idx, (uint64_t)id + 1, &idx))
		return &r->seqs[idx];
	if (!(v = realloc(r->seqs, (r->nseqs + 1) * sizeof(*v))))
		return NULL;
	r->seqs = v;
	v[r->nseqs] = (struct pr_seq){ 0 };
	if (u64map__put(&r->seq_idx, (uint64_t)id + 1, r->nseqs))
		return NULL;
	return &r->seqs[r->nseqs++];
}

/* Interned ids are never redefined: the first definition stays. */
static int intern(struct perfetto_interp *r, struct pr_seq *s,
		  const Perfetto__Protos__InternedData *d)
{
	uint64_t idx;
	struct pr_loc *l;
	int err;

	for (size_t i = 0; i < d->n_event_names; i++) {
		const Perfetto__Protos__EventName *en = d->event_names[i];

		if (!en->has_iid || !en->iid || !en->name || u64map__find(&s->names, en->iid))
			continue;
		if ((err = func_for_name(r, en->name, &idx)) ||
		    (err = u64map__put(&s->names, en->iid, idx)))
			return err;
	}
	for (size_t i = 0; i < d->n_source_locations; i++) {
		const Perfetto__Protos__SourceLocation *sl = d->source_locations[i];

		if (!sl->has_iid || !sl->iid || !sl->file_name || u64map__find(&s->locs, sl->iid))
			continue;
		if (!(l = realloc(r->locs, (r->nlocs + 1) * sizeof(*l))))
			return -ENOMEM;
		r->locs = l;
		l[r->nlocs] = (struct pr_loc){ strdup(sl->file_name), sl->line_number };
		if (!l[r->nlocs].file)
			return -ENOMEM;
		if ((err = u64map__put(&s->locs, sl->iid, ++r->nlocs)))
			return err;
	}
	return perfetto_ident__intern(r->ident, &s->ident, d);
}

static char *join_cmdline(const Perfetto__Protos__ProcessDescriptor *pd)
{
	size_t n = 1;
	char *s;

	if (!pd->n_cmdline)
		return NULL;
	for (size_t i = 0; i < pd->n_cmdline; i++)
		n += strlen(pd->cmdline[i]) + 1;
	if (!(s = calloc(1, n)))
		return NULL;
	for (size_t i = 0; i < pd->n_cmdline; i++) {
		if (i)
			strcat(s, " ");
		strcat(s, pd->cmdline[i]);
	}
	return s;
}

static int process_desc(struct perfetto_interp *r, const Perfetto__Protos__ProcessDescriptor *pd)
{
	uint64_t key = (uint64_t)(uint32_t)pd->pid + 1, idx;
	struct pr_proc *p;

	if (!pd->has_pid || u64map__find(&r->proc_idx, key))
		return 0;
	if (!(p = realloc(r->procs, (r->nprocs + 1) * sizeof(*p))))
		return -ENOMEM;
	r->procs = p;
	idx = r->nprocs++;
	p[idx].name = strdup(pd->process_name ? pd->process_name : "");
	p[idx].cmdline = join_cmdline(pd);
	if (!p[idx].name)
		return -ENOMEM;
	return u64map__put(&r->proc_idx, key, idx);
}

static int track_desc(struct perfetto_interp *r, const Perfetto__Protos__TrackDescriptor *td)
{
	const Perfetto__Protos__ThreadDescriptor *th = td->thread;
	struct pr_track *t;
	int err;

	if ((td->process && (err = process_desc(r, td->process))) ||
	    (err = perfetto_states__describe(r->states, td)))
		return err;
	if (td->uuid == PERFETTO_META_UUID && td->name && !strcmp(td->name, PERFETTO_META_TRACK))
		r->saw_meta = true;
	if (!td->has_uuid || !td->uuid || !th || !th->has_tid ||
	    u64map__find(&r->track_idx, td->uuid))
		return 0;
	if (!(t = realloc(r->tracks, (r->ntracks + 1) * sizeof(*t))))
		return -ENOMEM;
	r->tracks = t;
	t = &t[r->ntracks];
	*t = (struct pr_track){ .pid = (uint32_t)th->pid,
				.tid = (uint32_t)th->tid,
				.thread = true };
	if (!(t->name = strdup(th->thread_name ? th->thread_name : "")))
		return -ENOMEM;
	return u64map__put(&r->track_idx, td->uuid, r->ntracks++);
}

/* A thread track is a thread of its own, even when another track has
 * its tid (trace_processor nests slices per track); elided records of a
 * track never described (track 0) find the live (pid, tid) instead. */
static int bind_thread(struct perfetto_interp *r, uint32_t pid, uint32_t tid, const char *name,
		       bool own, struct fb_thread **out)
{
	const struct pr_proc *p = NULL;
	uint64_t idx;

	if (u64map__get(&r->proc_idx, (uint64_t)pid + 1, &idx))
		p = &r->procs[idx];
	if (own)
		return frame_builder__add_thread(r->fb, pid, tid, name, p ? p->name : "",
						 p ? p->cmdline : NULL, out);
	return frame_builder__thread(r->fb, pid, tid, name, p ? p->name : "", p ? p->cmdline : NULL,
				     out);
}

/* NULL (and 0) for tracks that are not thread tracks: their events are ignored. */
static int track_thread(struct perfetto_interp *r, uint64_t uuid, struct fb_thread **out)
{
	uint64_t idx;
	struct pr_track *t;
	int err;

	*out = NULL;
	if (!uuid || !u64map__get(&r->track_idx, uuid, &idx))
		return 0;
	t = &r->tracks[idx];
	if (!t->t && (err = bind_thread(r, t->pid, t->tid, t->name, true, &t->t)))
		return err;
	/* the writer's thread index: the frame ids its causes name */
	if (PERFETTO_IS_THREAD_UUID(uuid))
		frame_builder__set_uid(t->t, PERFETTO_THREAD_INDEX_OF(uuid));
	*out = t->t;
	return 0;
}

/* ---- events ---- */

static int elided_event(struct perfetto_interp *r, const Perfetto__Protos__TrackEvent *ev)
{
	const char *name = perfetto_args__str(ev, "function");
	uint32_t tid = (uint32_t)perfetto_args__uint(ev, "tid");
	struct trace_function id = { .mangled = perfetto_args__str(ev, "mangled"),
				     .object = perfetto_args__str(ev, "object"),
				     .build_id = perfetto_args__str(ev, "build_id"),
				     .addr = perfetto_args__uint(ev, "addr") };
	uint64_t idx;
	struct fb_thread *t;
	int err;

	if (!name)
		return 0;
	if ((err = func_for_name(r, name, &idx)) ||
	    (err = announce(r, idx, perfetto_args__str(ev, "file"),
			    (uint32_t)perfetto_args__uint(ev, "line"), &id)))
		return err;
	if ((err = track_thread(r, perfetto_args__uint(ev, "track"), &t)))
		return err;
	if (!t &&
	    (err = bind_thread(r, (uint32_t)perfetto_args__uint(ev, "pid"), tid, "", false, &t)))
		return err;
	return frame_builder__elided(r->fb, t, (uint32_t)idx + 1, perfetto_args__uint(ev, "calls"),
				     perfetto_args__uint(ev, "total_ns"));
}

static int meta_event(struct perfetto_interp *r, const Perfetto__Protos__TrackEvent *ev)
{
	if (!ev->name)
		return 0;
	if (!strcmp(ev->name, PERFETTO_ELIDED_EVENT))
		return elided_event(r, ev);
	if (!strcmp(ev->name, PERFETTO_GAP_EVENT)) {
		struct trace_gap g = { .pid = (uint32_t)perfetto_args__uint(ev, "pid"),
				       .object = perfetto_args__str(ev, "object"),
				       .start_ns = perfetto_args__uint(ev, "start_ns"),
				       .end_ns = perfetto_args__uint(ev, "end_ns"),
				       .why = perfetto_args__str(ev, "why") };

		if (!g.why)
			g.why = "";
		return frame_builder__gap(r->fb, &g);
	}
	if (strcmp(ev->name, PERFETTO_STATS_EVENT))
		return 0;
	for (size_t i = 0; i < trace_stat_nfields; i++)
		*trace_stats__field(&r->stats, i) = perfetto_args__uint(ev,
									trace_stat_fields[i].name);
	r->saw_stats = true;
	return 0;
}

/* te: the full event, for a cause (NULL from the fast path: none). */
static int slice_begin(struct perfetto_interp *r, struct pr_seq *s, struct fb_thread *t,
		       const struct perfetto_fast_event *ev, const char *name, uint64_t ts,
		       const Perfetto__Protos__TrackEvent *te)
{
	const struct pr_loc *loc = NULL;
	struct trace_function ident = { 0 }, *id = NULL;
	uint64_t idx, li;
	int err;

	/* trace_processor drops what nests deeper than this */
	if (frame_builder__depth(t) >= PERFETTO_MAX_DEPTH)
		return 0;
	/* iid 0 is unset, and u64map keys must not be 0 (it marks empty slots) */
	if (ev->has_name_iid && ev->name_iid && u64map__get(&s->names, ev->name_iid, &idx)) {
		err = 0;
		if (perfetto_ident__lookup(r->ident, &s->ident, ev->name_iid, &ident))
			id = &ident;
	} else {
		err = func_for_name(r, name ? name : "[unknown]", &idx);
	}
	if (err)
		return err;
	if (ev->has_srcloc_iid && ev->srcloc_iid && u64map__get(&s->locs, ev->srcloc_iid, &li))
		loc = &r->locs[li - 1];
	if ((err = announce(r, idx, loc ? loc->file : NULL, loc ? loc->line : 0, id)))
		return err;
	/* only a frame that begins takes its cause: one nested too deep drops */
	if (te)
		perfetto_args__cause(t, te);
	return frame_builder__enter(r->fb, t, (uint32_t)idx + 1, ts, 0);
}

/* A slice on a thread's state track: its begin is a switch.  Events on
 * other tracks that are not thread tracks are ignored. */
static int state_event(struct perfetto_interp *r, struct pr_seq *s,
		       const struct perfetto_fast_event *ev, const char *name, uint64_t uuid,
		       uint64_t ts)
{
	uint64_t owner = perfetto_states__owner(r->states, uuid), idx;
	struct fb_thread *t;
	int err;

	if (!owner || ev->type != PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_BEGIN)
		return 0;
	if ((err = track_thread(r, owner, &t)) || !t)
		return err;
	if (!name && ev->has_name_iid && u64map__get(&s->names, ev->name_iid, &idx))
		name = r->funcs[idx].name;
	return perfetto_states__begin(r->states, r->fb, t, uuid, name, ts);
}

/* A slice begin or end on a thread track, or on a thread's state track.
 * ev holds the event's fields (from the full packet or the reader's fast
 * path); name is the inline name when there is one; te the full event
 * (NULL from the fast path, which has no annotations). */
static int slice_event(struct perfetto_interp *r, struct pr_seq *s,
		       const struct perfetto_fast_event *ev, const char *name, uint64_t uuid,
		       uint64_t ts, const Perfetto__Protos__TrackEvent *te)
{
	struct fb_thread *t;
	int err;

	if (ev->type != PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_BEGIN &&
	    ev->type != PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_END)
		return 0;
	if ((err = track_thread(r, uuid, &t)))
		return err;
	if (!t)
		return state_event(r, s, ev, name, uuid, ts);
	if (ev->type == PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_BEGIN)
		return slice_begin(r, s, t, ev, name, ts, te);
	if (!frame_builder__depth(t))
		return 0;
	if ((err = perfetto_args__values(t, te)) || (err = perfetto_args__costs(t, te)))
		return err;
	if (ev->exit_inferred) {
		r->inferred_ends++;
		return frame_builder__leave(r->fb, t, ts, FRAME_INFERRED);
	}
	return frame_builder__leave(r->fb, t, ts, FRAME_RETURNED);
}

/* An INSTANT on a thread track with a flow and a cause's name: where that
 * thread made another run. */
static int cause_event(struct perfetto_interp *r, const Perfetto__Protos__TrackEvent *te,
		       uint64_t uuid, uint64_t ts)
{
	enum frame_cause kind = te->name ? frame_cause__parse(te->name) : CAUSE_NONE;
	uint64_t woken = perfetto_args__uint(te, PERFETTO_WOKEN_ARG);
	struct fb_thread *t;
	int err;

	if (kind == CAUSE_NONE || !te->n_flow_ids)
		return 0;
	struct cause_point cp = { .ts = ts, .flow = te->flow_ids[0], .kind = kind };

	if ((err = track_thread(r, uuid, &t)) || !t)
		return err;
	/* the causing frame, when not the innermost one (a stack hand-off) */
	cp.at_depth = frame_builder__depth_of(t, perfetto_args__uint(te, PERFETTO_CAUSE_ARG));
	/* by the writer's index: its track may not have been read yet */
	if (PERFETTO_IS_THREAD_UUID(woken)) {
		cp.to_known = true;
		cp.to_uid = PERFETTO_THREAD_INDEX_OF(woken);
	}
	return frame_builder__cause_point(r->fb, t, &cp);
}

static int track_event(struct perfetto_interp *r, struct pr_seq *s,
		       const Perfetto__Protos__TrackEvent *te, uint64_t ts)
{
	uint64_t uuid = te->has_track_uuid ? te->track_uuid : s->def_track;
	struct perfetto_fast_event ev = {
		.type = te->type,
		.has_name_iid = te->has_name_iid,
		.name_iid = te->name_iid,
		.has_srcloc_iid = te->has_source_location_iid,
		.srcloc_iid = te->source_location_iid,
		.exit_inferred = perfetto_args__bool(te, "exit_inferred"),
	};

	if (!te->has_track_uuid && !s->has_track)
		return 0;
	if (uuid == PERFETTO_META_UUID &&
	    te->type == PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_INSTANT)
		return meta_event(r, te);
	if (te->type == PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_INSTANT)
		return cause_event(r, te, uuid, ts);
	return slice_event(r, s, &ev, te->name, uuid, ts, te);
}

int perfetto_interp__fast_event(struct perfetto_interp *r, const struct perfetto_fast_event *e)
{
	struct pr_seq *s = seq_get(r, e->seq_id);
	uint64_t uuid, ts;
	int err;

	if (!s)
		return -ENOMEM;
	uuid = e->has_track_uuid ? e->track_uuid : s->def_track;
	/* what only the full path handles; nothing has changed yet */
	if ((e->seq_flags & SEQ_CLEARED) || (uuid == PERFETTO_META_UUID) || !e->has_timestamp)
		return 0;
	if ((e->seq_flags & SEQ_NEEDS) && !s->valid)
		return 1;
	if (!perfetto_clocks__time(&s->clocks, e->has_clock_id, e->clock_id, e->timestamp, &ts))
		return 1;
	if (!e->has_track_uuid && !s->has_track)
		return 1;
	err = slice_event(r, s, e, NULL, uuid, ts, NULL);
	return err ? err : 1;
}

int perfetto_interp__packet(struct perfetto_interp *r, const Packet *p)
{
	struct pr_seq *s = seq_get(r, p->trusted_packet_sequence_id);
	uint64_t ts = 0;
	int err;

	if (!s)
		return -ENOMEM;
	if (p->sequence_flags & SEQ_CLEARED) {
		seq_reset(s);
		s->valid = true;
	} else if ((p->sequence_flags & SEQ_NEEDS) && !s->valid) {
		return 0;
	}
	if (p->trace_packet_defaults) {
		const Perfetto__Protos__TracePacketDefaults *d = p->trace_packet_defaults;

		s->clocks.has_default = d->has_timestamp_clock_id;
		s->clocks.default_id = d->timestamp_clock_id;
		s->has_track = d->track_event_defaults && d->track_event_defaults->has_track_uuid;
		s->def_track = s->has_track ? d->track_event_defaults->track_uuid : 0;
	}
	if ((p->interned_data && (err = intern(r, s, p->interned_data))) ||
	    (p->clock_snapshot &&
	     (err = perfetto_clocks__snapshot(&s->clocks, p->clock_snapshot))) ||
	    (p->track_descriptor && (err = track_desc(r, p->track_descriptor))))
		return err;
	if (p->has_timestamp && !perfetto_clocks__time(&s->clocks, p->has_timestamp_clock_id,
						       p->timestamp_clock_id, p->timestamp, &ts))
		return 0;
	/* An event without a time cannot be placed: trace_processor drops it. */
	if (p->track_event && !p->has_timestamp)
		return 0;
	return p->track_event ? track_event(r, s, p->track_event, ts) : 0;
}

struct perfetto_interp *perfetto_interp__new(const struct frame_sink *sink)
{
	struct perfetto_interp *r = calloc(1, sizeof(*r));

	if (r && (!(r->fb = frame_builder__new(sink)) || !(r->ident = perfetto_ident__new()) ||
		  !(r->states = perfetto_states__new()))) {
		frame_builder__free(r->fb);
		perfetto_ident__free(r->ident);
		free(r);
		r = NULL;
	}
	return r;
}

bool perfetto_interp__complete(const struct perfetto_interp *r)
{
	return !r->saw_meta || r->saw_stats;
}

int perfetto_interp__finish(struct perfetto_interp *r)
{
	/* The recorded statistics already count the exits the trace marks
	 * inferred, and the frame builder counts them again as we give them
	 * back per frame: count them once. */
	r->stats.inferred_exits -= r->inferred_ends < r->stats.inferred_exits
					   ? r->inferred_ends
					   : r->stats.inferred_exits;
	return frame_builder__finish(r->fb, &r->stats);
}

void perfetto_interp__free(struct perfetto_interp *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nseqs; i++)
		seq_reset(&r->seqs[i]);
	for (size_t i = 0; i < r->ntracks; i++)
		free(r->tracks[i].name);
	for (size_t i = 0; i < r->nprocs; i++) {
		free(r->procs[i].name);
		free(r->procs[i].cmdline);
	}
	for (size_t i = 0; i < r->nfuncs; i++)
		free(r->funcs[i].name);
	for (size_t i = 0; i < r->nlocs; i++)
		free(r->locs[i].file);
	perfetto_ident__free(r->ident);
	perfetto_states__free(r->states);
	free(r->seqs);
	free(r->tracks);
	free(r->procs);
	free(r->funcs);
	free(r->locs);
	u64map__clear(&r->seq_idx);
	u64map__clear(&r->track_idx);
	u64map__clear(&r->proc_idx);
	u64map__clear(&r->func_idx);
	frame_builder__free(r->fb);
	free(r);
}
