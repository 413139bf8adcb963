// SPDX-License-Identifier: MIT
/* perfetto_packets.c: the Perfetto writer's rare packets, built with
 * protobuf-c: a sequence's first packet (clock snapshot, defaults), the
 * process and thread descriptors, the sledtrace track and its elided and
 * stats events.  The per-call packets are hand-encoded in
 * perfetto_writer.c. */
#include <errno.h>
#include <string.h>

#include "format/perfetto/perfetto_writer_int.h"
#include "model/trace_stats.h"

/* Annotations one meta event carries at most (the stats have one each). */
#define TRACE_STATS_MAX_ANN 16
_Static_assert(sizeof(struct trace_stats) / sizeof(uint64_t) <= TRACE_STATS_MAX_ANN,
	       "the stats event has room for every field");

int pw_start_seq(struct perfetto_writer *w, struct pw_seq *s, const struct trace_thread *th,
		 uint64_t ts)
{
	Perfetto__Protos__TracePacket pkt = PERFETTO__PROTOS__TRACE_PACKET__INIT;
	Perfetto__Protos__ClockSnapshot snap = PERFETTO__PROTOS__CLOCK_SNAPSHOT__INIT;
	Perfetto__Protos__ClockSnapshot__Clock boot = PERFETTO__PROTOS__CLOCK_SNAPSHOT__CLOCK__INIT;
	Perfetto__Protos__ClockSnapshot__Clock seqclk =
		PERFETTO__PROTOS__CLOCK_SNAPSHOT__CLOCK__INIT;
	Perfetto__Protos__ClockSnapshot__Clock *clocks[] = { &boot, &seqclk };
	Perfetto__Protos__TracePacketDefaults defs = PERFETTO__PROTOS__TRACE_PACKET_DEFAULTS__INIT;
	Perfetto__Protos__TrackEventDefaults tdefs = PERFETTO__PROTOS__TRACK_EVENT_DEFAULTS__INIT;

	boot.has_clock_id = seqclk.has_clock_id = 1;
	boot.clock_id = CLOCK_BOOTTIME_ID;
	seqclk.clock_id = CLOCK_SEQ_ID;
	boot.has_timestamp = seqclk.has_timestamp = 1;
	boot.timestamp = seqclk.timestamp = ts;
	seqclk.has_is_incremental = seqclk.is_incremental = 1;
	seqclk.has_unit_multiplier_ns = 1;
	seqclk.unit_multiplier_ns = 1;
	snap.n_clocks = 2;
	snap.clocks = clocks;
	snap.has_primary_trace_clock = 1;
	snap.primary_trace_clock = CLOCK_BOOTTIME_ID;
	tdefs.has_track_uuid = 1;
	tdefs.track_uuid = PERFETTO_THREAD_UUID(th->index);
	defs.has_timestamp_clock_id = 1;
	defs.timestamp_clock_id = CLOCK_SEQ_ID;
	defs.track_event_defaults = &tdefs;
	pkt.has_sequence_flags = 1;
	pkt.sequence_flags = SEQ_CLEARED;
	pkt.has_first_packet_on_sequence = pkt.first_packet_on_sequence = 1;
	pkt.has_timestamp = 1;
	pkt.timestamp = ts;
	pkt.has_timestamp_clock_id = 1;
	pkt.timestamp_clock_id = CLOCK_BOOTTIME_ID;
	pkt.clock_snapshot = &snap;
	pkt.trace_packet_defaults = &defs;
	s->started = true;
	s->last_ts = ts;
	return pw_append_msg(w, s, &pkt);
}

/* Once per process, written through at once on the sledtrace sequence: thread
 * sequences are flushed in any order, and each one's thread descriptor
 * must find its parent already in the file. */
int pw_describe_process(struct perfetto_writer *w, const struct trace_thread *th)
{
	Perfetto__Protos__TracePacket pkt = PERFETTO__PROTOS__TRACE_PACKET__INIT;
	Perfetto__Protos__TrackDescriptor td = PERFETTO__PROTOS__TRACK_DESCRIPTOR__INIT;
	Perfetto__Protos__ProcessDescriptor pd = PERFETTO__PROTOS__PROCESS_DESCRIPTOR__INIT;
	char *cmdline = (char *)th->cmdline;
	uint64_t seen;
	int err;

	if (u64map__get(&w->procs, (uint64_t)th->process_index + 1, &seen))
		return 0;
	if ((err = u64map__put(&w->procs, (uint64_t)th->process_index + 1, 1)))
		return w->err = err;
	td.has_uuid = 1;
	td.uuid = PERFETTO_PROCESS_UUID(th->process_index);
	pd.has_pid = 1;
	pd.pid = (int32_t)th->pid;
	pd.process_name = (char *)th->process_name;
	if (cmdline) {
		pd.n_cmdline = 1;
		pd.cmdline = &cmdline;
	}
	td.process = &pd;
	pkt.track_descriptor = &td;
	if ((err = pw_append_msg(w, &w->meta, &pkt)))
		return err;
	return pw_flush_seq(w, &w->meta, false);
}

int pw_describe_thread(struct perfetto_writer *w, struct pw_seq *s, const struct trace_thread *th)
{
	Perfetto__Protos__TracePacket pkt = PERFETTO__PROTOS__TRACE_PACKET__INIT;
	Perfetto__Protos__TrackDescriptor td = PERFETTO__PROTOS__TRACK_DESCRIPTOR__INIT;
	Perfetto__Protos__ThreadDescriptor thd = PERFETTO__PROTOS__THREAD_DESCRIPTOR__INIT;

	td.has_uuid = td.has_parent_uuid = 1;
	td.uuid = PERFETTO_THREAD_UUID(th->index);
	td.parent_uuid = PERFETTO_PROCESS_UUID(th->process_index);
	thd.has_pid = thd.has_tid = 1;
	thd.pid = (int32_t)th->pid;
	thd.tid = (int32_t)th->tid;
	thd.thread_name = (char *)th->name;
	td.thread = &thd;
	pkt.track_descriptor = &td;
	return pw_append_msg(w, s, &pkt);
}

typedef Perfetto__Protos__InternedString InternedString;

static InternedString interned_string(uint64_t iid, const char *str)
{
	InternedString is = PERFETTO__PROTOS__INTERNED_STRING__INIT;

	is.has_iid = is.has_str = 1;
	is.iid = iid;
	is.str.data = (uint8_t *)str;
	is.str.len = strlen(str);
	return is;
}

/* A function's identity as a profiling Frame whose iid is its event name's
 * (the fid); its object as a Mapping whose iid, build-id iid and path iid
 * are the object index + 1.  Nothing displays these; the reader maps them
 * back onto the function. */
int pw_intern_identity(struct perfetto_writer *w, struct pw_seq *s, uint32_t fid)
{
	Perfetto__Protos__TracePacket pkt = PERFETTO__PROTOS__TRACE_PACKET__INIT;
	Perfetto__Protos__InternedData id = PERFETTO__PROTOS__INTERNED_DATA__INIT;
	Perfetto__Protos__Frame fr = PERFETTO__PROTOS__FRAME__INIT, *frp = &fr;
	Perfetto__Protos__Mapping map = PERFETTO__PROTOS__MAPPING__INIT, *mapp = &map;
	InternedString name, bid, path, *namep = &name, *bidp = &bid, *pathp = &path;
	const struct pw_func *f = &w->funcs[fid];
	uint64_t obj_iid = (uint64_t)f->obj + 1, path_iid = obj_iid;

	fr.has_iid = 1;
	fr.iid = fid;
	if (f->mangled) {
		name = interned_string(fid, f->mangled);
		id.n_function_names = 1;
		id.function_names = &namep;
		fr.has_function_name_id = 1;
		fr.function_name_id = fid;
	}
	fr.has_rel_pc = 1;
	fr.rel_pc = f->addr;
	if (f->obj >= 0) {
		fr.has_mapping_id = 1;
		fr.mapping_id = obj_iid;
	}
	if (f->obj >= 0 && (f->obj >= 64 || !(s->objs_interned >> f->obj & 1))) {
		const struct pw_object *o = &w->objs[f->obj];

		map.has_iid = 1;
		map.iid = obj_iid;
		map.n_path_string_ids = 1;
		map.path_string_ids = &path_iid;
		path = interned_string(obj_iid, o->path);
		id.n_mapping_paths = 1;
		id.mapping_paths = &pathp;
		if (*o->build_id) {
			map.has_build_id = 1;
			map.build_id = obj_iid;
			bid = interned_string(obj_iid, o->build_id);
			id.n_build_ids = 1;
			id.build_ids = &bidp;
		}
		id.n_mappings = 1;
		id.mappings = &mapp;
		if (f->obj < 64)
			s->objs_interned |= (uint64_t)1 << f->obj;
	}
	id.n_frames = 1;
	id.frames = &frp;
	pkt.has_sequence_flags = 1;
	pkt.sequence_flags = SEQ_NEEDS;
	pkt.interned_data = &id;
	return pw_append_msg(w, s, &pkt);
}

static Perfetto__Protos__DebugAnnotation uint_ann(const char *name, uint64_t v)
{
	Perfetto__Protos__DebugAnnotation a = PERFETTO__PROTOS__DEBUG_ANNOTATION__INIT;

	a.name = (char *)name;
	a.has_uint_value = 1;
	a.uint_value = v;
	return a;
}

static Perfetto__Protos__DebugAnnotation str_ann(const char *name, const char *v)
{
	Perfetto__Protos__DebugAnnotation a = PERFETTO__PROTOS__DEBUG_ANNOTATION__INIT;

	a.name = (char *)name;
	a.string_value = (char *)v;
	return a;
}

/* An INSTANT on the sledtrace track carrying named values. */
static int meta_event(struct perfetto_writer *w, const char *name,
		      Perfetto__Protos__DebugAnnotation *anns, size_t n)
{
	Perfetto__Protos__TracePacket pkt = PERFETTO__PROTOS__TRACE_PACKET__INIT;
	Perfetto__Protos__TrackEvent ev = PERFETTO__PROTOS__TRACK_EVENT__INIT;
	Perfetto__Protos__DebugAnnotation *ptrs[TRACE_STATS_MAX_ANN];

	for (size_t i = 0; i < n; i++)
		ptrs[i] = &anns[i];
	ev.has_type = ev.has_track_uuid = 1;
	ev.type = PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_INSTANT;
	ev.track_uuid = PERFETTO_META_UUID;
	ev.name = (char *)name;
	ev.n_debug_annotations = n;
	ev.debug_annotations = ptrs;
	pkt.has_timestamp = 1;
	pkt.timestamp = w->max_ts;
	pkt.track_event = &ev;
	return pw_append_msg(w, &w->meta, &pkt);
}

int pw_write_elided(struct perfetto_writer *w, const struct pw_elided *e)
{
	struct pw_func *f = &w->funcs[e->fid];
	Perfetto__Protos__DebugAnnotation a[12];
	size_t n = 0;
	int err = pw_locate(w, f);

	if (err)
		return err;
	a[n++] = uint_ann("pid", e->pid);
	a[n++] = uint_ann("tid", e->tid);
	a[n++] = uint_ann("track", PERFETTO_THREAD_UUID(e->index));
	a[n++] = uint_ann("calls", e->calls);
	a[n++] = uint_ann("total_ns", e->total_ns);
	a[n++] = uint_ann("line", f->line);
	a[n++] = str_ann("function", f->name);
	if (f->file)
		a[n++] = str_ann("file", f->file);
	if (f->mangled)
		a[n++] = str_ann("mangled", f->mangled);
	if (f->obj >= 0) {
		a[n++] = str_ann("object", w->objs[f->obj].path);
		a[n++] = str_ann("build_id", w->objs[f->obj].build_id);
	}
	if (f->addr)
		a[n++] = uint_ann("addr", f->addr);
	return meta_event(w, PERFETTO_ELIDED_EVENT, a, n);
}

int pw_write_gap(struct perfetto_writer *w, const struct trace_gap *g)
{
	Perfetto__Protos__DebugAnnotation a[5];
	size_t n = 0;

	a[n++] = uint_ann("pid", g->pid);
	a[n++] = uint_ann("start_ns", g->start_ns);
	a[n++] = uint_ann("end_ns", g->end_ns);
	a[n++] = str_ann("why", g->why);
	if (g->object)
		a[n++] = str_ann("object", g->object);
	return meta_event(w, PERFETTO_GAP_EVENT, a, n);
}

int pw_write_stats(struct perfetto_writer *w)
{
	Perfetto__Protos__DebugAnnotation a[TRACE_STATS_MAX_ANN];
	struct trace_stats st = w->stats;

	st.depth_capped += w->capped;
	for (size_t i = 0; i < trace_stat_nfields; i++)
		a[i] = uint_ann(trace_stat_fields[i].name, trace_stats__get(&st, i));
	return meta_event(w, PERFETTO_STATS_EVENT, a, trace_stat_nfields);
}

/* Sequence 1 opens the file, uncompressed, so the file is recognisable. */
int pw_write_header(struct perfetto_writer *w)
{
	Perfetto__Protos__TracePacket pkt = PERFETTO__PROTOS__TRACE_PACKET__INIT;
	Perfetto__Protos__TrackDescriptor td = PERFETTO__PROTOS__TRACK_DESCRIPTOR__INIT;
	int err;

	td.has_uuid = 1;
	td.uuid = PERFETTO_META_UUID;
	td.name = PERFETTO_META_TRACK;
	pkt.has_sequence_flags = 1;
	pkt.sequence_flags = SEQ_CLEARED;
	pkt.has_first_packet_on_sequence = pkt.first_packet_on_sequence = 1;
	pkt.track_descriptor = &td;
	w->meta.seq_id = PERFETTO_META_SEQ;
	if ((err = pw_append_msg(w, &w->meta, &pkt)))
		return err;
	err = pw_write_all(w, w->meta.pending.p, w->meta.pending.len);
	w->buffered -= w->meta.pending.len;
	w->meta.pending.len = 0;
	return err;
}
