// SPDX-License-Identifier: MIT
/* perfetto_packets.c: see perfetto_packets.h.  Fields go out in field
 * number order, as protobuf encoders conventionally write them, except in
 * the hot packets, whose order is chosen for deflate (pkt_begin). */
#include <stdio.h>
#include <string.h>

#include "format/perfetto/perfetto_layout.h"
#include "format/perfetto/perfetto_costs.h"
#include "format/perfetto/perfetto_packets.h"
#include "model/trace_stats.h"

enum { /* TracePacket */
       TP_CLOCK_SNAPSHOT = 6,
       TP_TIMESTAMP = 8,
       TP_SEQ_ID = 10,
       TP_TRACK_EVENT = 11,
       TP_INTERNED_DATA = 12,
       TP_SEQUENCE_FLAGS = 13,
       TP_COMPRESSED = 50,
       TP_TIMESTAMP_CLOCK_ID = 58,
       TP_DEFAULTS = 59,
       TP_TRACK_DESCRIPTOR = 60,
       TP_FIRST_ON_SEQUENCE = 87,
};

enum { /* TrackEvent */
       TE_DEBUG_ANNOTATIONS = 4,
       TE_TYPE = 9,
       TE_NAME_IID = 10,
       TE_TRACK_UUID = 11,
       TE_NAME = 23,
       TE_SOURCE_LOCATION_IID = 34,
       TE_FLOW_IDS = 47,
       TE_TERMINATING_FLOW_IDS = 48,
};

enum { TYPE_SLICE_BEGIN = 1, TYPE_SLICE_END = 2, TYPE_INSTANT = 3 };

enum { /* InternedData */
       ID_EVENT_NAMES = 2,
       ID_SOURCE_LOCATIONS = 4,
       ID_FUNCTION_NAMES = 5,
       ID_FRAMES = 6,
       ID_BUILD_IDS = 16,
       ID_MAPPING_PATHS = 17,
       ID_MAPPINGS = 19,
};

/* Trace.packet: every packet is framed as one in the file and in chunks. */
static size_t open_packet(struct pbuf *b)
{
	return pbuf__open(b, 1);
}

void pkt_header(struct pbuf *b)
{
	size_t m = open_packet(b), td;

	pbuf__uint_set(b, TP_SEQ_ID, PERFETTO_META_SEQ);
	pbuf__uint_set(b, TP_SEQUENCE_FLAGS, SEQ_CLEARED);
	td = pbuf__open(b, TP_TRACK_DESCRIPTOR);
	pbuf__uint_set(b, 1, PERFETTO_META_UUID);
	pbuf__str(b, 2, PERFETTO_META_TRACK);
	pbuf__close(b, td);
	pbuf__uint_set(b, TP_FIRST_ON_SEQUENCE, 1);
	pbuf__close(b, m);
}

static void snapshot_clock(struct pbuf *b, uint32_t id, uint64_t ts, bool incremental)
{
	size_t c = pbuf__open(b, 1); /* ClockSnapshot.clocks */

	pbuf__uint_set(b, 1, id);
	pbuf__uint_set(b, 2, ts);
	if (incremental) {
		pbuf__uint_set(b, 3, 1); /* is_incremental */
		pbuf__uint_set(b, 4, 1); /* unit_multiplier_ns */
	}
	pbuf__close(b, c);
}

void pkt_seq_start(struct pbuf *b, uint32_t seq, uint32_t thread_index, uint64_t ts)
{
	size_t m = open_packet(b), snap, defs, tdefs;

	snap = pbuf__open(b, TP_CLOCK_SNAPSHOT);
	snapshot_clock(b, CLOCK_BOOTTIME_ID, ts, false);
	snapshot_clock(b, CLOCK_SEQ_ID, ts, true);
	pbuf__uint_set(b, 2, CLOCK_BOOTTIME_ID); /* primary_trace_clock */
	pbuf__close(b, snap);
	pbuf__uint_set(b, TP_TIMESTAMP, ts);
	pbuf__uint_set(b, TP_SEQ_ID, seq);
	pbuf__uint_set(b, TP_SEQUENCE_FLAGS, SEQ_CLEARED);
	pbuf__uint_set(b, TP_TIMESTAMP_CLOCK_ID, CLOCK_BOOTTIME_ID);
	defs = pbuf__open(b, TP_DEFAULTS);
	tdefs = pbuf__open(b, 11); /* track_event_defaults */
	pbuf__uint_set(b, 11, PERFETTO_THREAD_UUID(thread_index));
	pbuf__close(b, tdefs);
	pbuf__uint_set(b, 58, CLOCK_SEQ_ID); /* timestamp_clock_id */
	pbuf__close(b, defs);
	pbuf__uint_set(b, TP_FIRST_ON_SEQUENCE, 1);
	pbuf__close(b, m);
}

void pkt_process(struct pbuf *b, uint32_t seq, const struct trace_thread *th)
{
	size_t m = open_packet(b), td, pd;

	pbuf__uint_set(b, TP_SEQ_ID, seq);
	td = pbuf__open(b, TP_TRACK_DESCRIPTOR);
	pbuf__uint_set(b, 1, PERFETTO_PROCESS_UUID(th->process_index));
	pd = pbuf__open(b, 3); /* ProcessDescriptor */
	pbuf__sint_set(b, 1, (int32_t)th->pid);
	pbuf__str(b, 2, th->cmdline);
	pbuf__str(b, 6, th->process_name);
	pbuf__close(b, pd);
	pbuf__close(b, td);
	pbuf__close(b, m);
}

void pkt_thread(struct pbuf *b, uint32_t seq, const struct trace_thread *th)
{
	size_t m = open_packet(b), td, thd;

	pbuf__uint_set(b, TP_SEQ_ID, seq);
	td = pbuf__open(b, TP_TRACK_DESCRIPTOR);
	pbuf__uint_set(b, 1, PERFETTO_THREAD_UUID(th->index));
	thd = pbuf__open(b, 4); /* ThreadDescriptor */
	pbuf__sint_set(b, 1, (int32_t)th->pid);
	pbuf__sint_set(b, 2, (int32_t)th->tid);
	pbuf__str(b, 5, th->name);
	pbuf__close(b, thd);
	pbuf__uint_set(b, 5, PERFETTO_PROCESS_UUID(th->process_index)); /* parent_uuid */
	pbuf__close(b, td);
	pbuf__close(b, m);
}

static void interned_string(struct pbuf *b, uint32_t field, uint64_t iid, const char *s)
{
	size_t is = pbuf__open(b, field);

	pbuf__uint_set(b, 1, iid);
	pbuf__bytes(b, 2, s, strlen(s));
	pbuf__close(b, is);
}

/* A function's identity as a profiling Frame whose iid is its event name's
 * (the fid); its object as a Mapping whose iid, build-id iid and path iid
 * are the object index + 1.  Nothing displays these; the reader maps them
 * back onto the function. */
void pkt_identity(struct pbuf *b, uint32_t seq, uint32_t fid, const struct pkt_func *f,
		  const struct pkt_object *o)
{
	uint64_t obj_iid = (uint64_t)f->obj + 1;
	size_t m = open_packet(b), id, fr, map;

	pbuf__uint_set(b, TP_SEQ_ID, seq);
	id = pbuf__open(b, TP_INTERNED_DATA);
	if (f->mangled)
		interned_string(b, ID_FUNCTION_NAMES, fid, f->mangled);
	fr = pbuf__open(b, ID_FRAMES);
	pbuf__uint_set(b, 1, fid);
	if (f->mangled)
		pbuf__uint_set(b, 2, fid); /* function_name_id */
	if (f->obj >= 0)
		pbuf__uint_set(b, 3, obj_iid); /* mapping_id */
	pbuf__uint_set(b, 4, f->addr);	       /* rel_pc */
	pbuf__close(b, fr);
	if (o && *o->build_id)
		interned_string(b, ID_BUILD_IDS, obj_iid, o->build_id);
	if (o) {
		interned_string(b, ID_MAPPING_PATHS, obj_iid, o->path);
		map = pbuf__open(b, ID_MAPPINGS);
		pbuf__uint_set(b, 1, obj_iid);
		if (*o->build_id)
			pbuf__uint_set(b, 2, obj_iid); /* build_id */
		pbuf__uint_set(b, 7, obj_iid);	       /* path_string_ids */
		pbuf__close(b, map);
	}
	pbuf__close(b, id);
	pbuf__uint_set(b, TP_SEQUENCE_FLAGS, SEQ_NEEDS);
	pbuf__close(b, m);
}

/* iid == fid for both event_names and source_locations. */
static uint8_t *interned_name(uint8_t *p, uint32_t fid, const struct pkt_func *f)
{
	uint8_t *id, *en, *sl;

	p = pbuf__put_open(p, TP_INTERNED_DATA, &id);
	p = pbuf__put_open(p, ID_EVENT_NAMES, &en);
	p = pbuf__put_uint(p, 1, fid);
	p = pbuf__put_bytes(p, 2, f->name, f->name_len);
	p = pbuf__put_close(en, p);
	if (f->file) {
		p = pbuf__put_open(p, ID_SOURCE_LOCATIONS, &sl);
		p = pbuf__put_uint(p, 1, fid);
		p = pbuf__put_bytes(p, 2, f->file, f->file_len);
		p = pbuf__put_bytes(p, 3, f->name, f->name_len);
		if (f->line)
			p = pbuf__put_uint(p, 4, f->line);
		p = pbuf__put_close(sl, p);
	}
	return pbuf__put_close(id, p);
}

/* Upper bounds of a hot packet's size, without and with interned data
 * (plus the strings): every field at its longest varint, every message's
 * length at its longest. */
#define HOT_ROOM 64
#define INTERN_ROOM 96

/* NEEDS_INCREMENTAL_STATE, the event, the function's interned data on its
 * first use here, and the delta timestamp last.  The delta is the one part
 * that varies from call to call; placed last, the constant bytes of one
 * packet and the start of the next form one run that deflate matches whole
 * (Rust tree: 2.57 -> 1.98 bytes/event).  Written at a cursor: this runs
 * for every traced call. */
static uint8_t *put_fixed64(uint8_t *p, uint32_t field, uint64_t v)
{
	p = pbuf__put_tag(p, field, PB_FIXED64);
	for (int i = 0; i < 8; i++)
		*p++ = (uint8_t)(v >> (8 * i));
	return p;
}

/* A debug annotation {name, uint_value}, at a cursor. */
static uint8_t *put_annotation_uint(uint8_t *p, const char *name, size_t len, uint64_t v)
{
	uint8_t *ann;

	p = pbuf__put_open(p, TE_DEBUG_ANNOTATIONS, &ann);
	p = pbuf__put_bytes(p, 10, name, len); /* name */
	p = pbuf__put_uint(p, 3, v);	       /* uint_value */
	return pbuf__put_close(ann, p);
}

static uint8_t *put_annotation_str(uint8_t *p, const char *name, const char *v)
{
	uint8_t *ann;

	p = pbuf__put_open(p, TE_DEBUG_ANNOTATIONS, &ann);
	p = pbuf__put_bytes(p, 10, name, strlen(name)); /* name */
	p = pbuf__put_bytes(p, 6, v, strlen(v));	/* string_value */
	return pbuf__put_close(ann, p);
}

/* A caused frame's begin: the link's end, and what the reader needs to
 * give the frame its cause without the causing thread's packets. */
#define CAUSE_ROOM 96
static uint8_t *put_cause(uint8_t *p, const struct frame *fr)
{
	p = put_annotation_uint(p, PERFETTO_CAUSE_ARG, strlen(PERFETTO_CAUSE_ARG), fr->cause);
	p = put_annotation_str(p, PERFETTO_CAUSE_KIND_ARG, frame_cause_names[fr->cause_kind]);
	return put_fixed64(p, TE_TERMINATING_FLOW_IDS, fr->flow);
}

void pkt_begin(struct pbuf *b, uint32_t seq, uint32_t fid, const struct pkt_func *f, bool intern,
	       uint64_t delta, const struct frame *caused)
{
	size_t room = HOT_ROOM + (intern ? INTERN_ROOM + 2 * f->name_len + f->file_len : 0) +
		      (caused ? CAUSE_ROOM : 0);
	uint8_t *p, *m, *te;

	if (pbuf__reserve(b, room))
		return;
	p = pbuf__put_open(b->p + b->len, 1, &m);
	p = pbuf__put_uint(p, TP_SEQ_ID, seq);
	p = pbuf__put_uint(p, TP_SEQUENCE_FLAGS, SEQ_NEEDS);
	p = pbuf__put_open(p, TP_TRACK_EVENT, &te);
	p = pbuf__put_uint(p, TE_TYPE, TYPE_SLICE_BEGIN);
	p = pbuf__put_uint(p, TE_NAME_IID, fid);
	if (f->file)
		p = pbuf__put_uint(p, TE_SOURCE_LOCATION_IID, fid);
	if (caused)
		p = put_cause(p, caused);
	p = pbuf__put_close(te, p);
	if (intern)
		p = interned_name(p, fid, f);
	p = pbuf__put_uint(p, TP_TIMESTAMP, delta);
	b->len = (size_t)(pbuf__put_close(m, p) - b->p);
}

/* An END whose time was inferred (FRAME_INFERRED: no exit probe fired, a
 * later event proved the frame gone) carries the debug annotation
 * {name: "exit_inferred", bool_value: true}; the reader gives it back. */
void pkt_end(struct pbuf *b, uint32_t seq, bool inferred, uint64_t probe_calls, uint64_t delta)
{
	static const char ann_name[] = "exit_inferred", calls_name[] = "probe_calls";
	uint8_t *p, *m, *te, *ann;

	if (pbuf__reserve(b, HOT_ROOM + sizeof(ann_name) + sizeof(calls_name) + 24))
		return;
	p = pbuf__put_open(b->p + b->len, 1, &m);
	p = pbuf__put_uint(p, TP_SEQ_ID, seq);
	p = pbuf__put_uint(p, TP_SEQUENCE_FLAGS, SEQ_NEEDS);
	p = pbuf__put_open(p, TP_TRACK_EVENT, &te);
	p = pbuf__put_uint(p, TE_TYPE, TYPE_SLICE_END);
	if (inferred) {
		p = pbuf__put_open(p, TE_DEBUG_ANNOTATIONS, &ann);
		p = pbuf__put_bytes(p, 10, ann_name, sizeof(ann_name) - 1); /* name */
		p = pbuf__put_uint(p, 2, 1);				    /* bool_value */
		p = pbuf__put_close(ann, p);
	}
	if (probe_calls)
		p = put_annotation_uint(p, calls_name, sizeof(calls_name) - 1, probe_calls);
	p = pbuf__put_close(te, p);
	p = pbuf__put_uint(p, TP_TIMESTAMP, delta);
	b->len = (size_t)(pbuf__put_close(m, p) - b->p);
}

void pkt_cause(struct pbuf *b, uint32_t seq, const struct cause_point *cp, uint64_t cause,
	       uint64_t delta)
{
	const char *name = frame_cause_names[cp->kind];
	uint8_t *p, *m, *te;

	if (pbuf__reserve(b, HOT_ROOM + strlen(name) + CAUSE_ROOM))
		return;
	p = pbuf__put_open(b->p + b->len, 1, &m);
	p = pbuf__put_uint(p, TP_SEQ_ID, seq);
	p = pbuf__put_uint(p, TP_SEQUENCE_FLAGS, SEQ_NEEDS);
	p = pbuf__put_open(p, TP_TRACK_EVENT, &te);
	p = pbuf__put_uint(p, TE_TYPE, TYPE_INSTANT);
	p = pbuf__put_bytes(p, TE_NAME, name, strlen(name));
	p = put_annotation_uint(p, PERFETTO_CAUSE_ARG, strlen(PERFETTO_CAUSE_ARG), cause);
	if (cp->to_known)
		p = put_annotation_uint(p, PERFETTO_WOKEN_ARG, strlen(PERFETTO_WOKEN_ARG),
					PERFETTO_THREAD_UUID(cp->to_uid));
	p = put_fixed64(p, TE_FLOW_IDS, cp->flow);
	p = pbuf__put_close(te, p);
	p = pbuf__put_uint(p, TP_TIMESTAMP, delta);
	b->len = (size_t)(pbuf__put_close(m, p) - b->p);
}

void pkt_state_track(struct pbuf *b, uint32_t seq, uint32_t thread_index)
{
	size_t m = open_packet(b), td;

	pbuf__uint_set(b, TP_SEQ_ID, seq);
	td = pbuf__open(b, TP_TRACK_DESCRIPTOR);
	pbuf__uint_set(b, 1, PERFETTO_STATE_UUID(thread_index));
	pbuf__str(b, 2, PERFETTO_STATE_TRACK);
	pbuf__uint_set(b, 5, PERFETTO_THREAD_UUID(thread_index)); /* parent_uuid */
	pbuf__close(b, td);
	pbuf__close(b, m);
}

/* Switches are far fewer than calls: plain encoding, in pkt_begin's field
 * order. */
void pkt_state_begin(struct pbuf *b, uint32_t seq, uint32_t thread_index, enum thread_state state,
		     const char *name, uint64_t ts, bool boot)
{
	size_t m = open_packet(b), te, id, en;

	pbuf__uint_set(b, TP_SEQ_ID, seq);
	pbuf__uint_set(b, TP_SEQUENCE_FLAGS, SEQ_NEEDS);
	te = pbuf__open(b, TP_TRACK_EVENT);
	pbuf__uint_set(b, TE_TYPE, TYPE_SLICE_BEGIN);
	pbuf__uint_set(b, TE_NAME_IID, PERFETTO_STATE_IID(state));
	pbuf__uint_set(b, TE_TRACK_UUID, PERFETTO_STATE_UUID(thread_index));
	pbuf__close(b, te);
	if (name) {
		id = pbuf__open(b, TP_INTERNED_DATA);
		en = pbuf__open(b, ID_EVENT_NAMES);
		pbuf__uint_set(b, 1, PERFETTO_STATE_IID(state));
		pbuf__str(b, 2, name);
		pbuf__close(b, en);
		pbuf__close(b, id);
	}
	pbuf__uint_set(b, TP_TIMESTAMP, ts);
	if (boot)
		pbuf__uint_set(b, TP_TIMESTAMP_CLOCK_ID, CLOCK_BOOTTIME_ID);
	pbuf__close(b, m);
}

void pkt_state_end(struct pbuf *b, uint32_t seq, uint32_t thread_index, uint64_t delta)
{
	size_t m = open_packet(b), te;

	pbuf__uint_set(b, TP_SEQ_ID, seq);
	pbuf__uint_set(b, TP_SEQUENCE_FLAGS, SEQ_NEEDS);
	te = pbuf__open(b, TP_TRACK_EVENT);
	pbuf__uint_set(b, TE_TYPE, TYPE_SLICE_END);
	pbuf__uint_set(b, TE_TRACK_UUID, PERFETTO_STATE_UUID(thread_index));
	pbuf__close(b, te);
	pbuf__uint_set(b, TP_TIMESTAMP, delta);
	pbuf__close(b, m);
}

/* DebugAnnotation's fields. */
enum { DA_BOOL = 2, DA_UINT = 3, DA_INT = 4, DA_STRING = 6, DA_POINTER = 7, DA_NAME = 10 };

static void value_ann(struct pbuf *b, const struct trace_value *v)
{
	size_t a = pbuf__open(b, TE_DEBUG_ANNOTATIONS), n = strlen(v->name);
	char name[256];

	if (!strcmp(v->name, VALUE_RETURN))
		snprintf(name, sizeof(name), "%s", v->name);
	else
		snprintf(name, sizeof(name), "args.%.*s", (int)(n < 200 ? n : 200), v->name);
	pbuf__str(b, DA_NAME, name);
	switch (v->kind) {
	case VALUE_INT:
		pbuf__sint_set(b, DA_INT, (int64_t)v->raw);
		break;
	case VALUE_UINT:
		pbuf__uint_set(b, DA_UINT, v->raw);
		break;
	case VALUE_BOOL:
		pbuf__uint_set(b, DA_BOOL, v->raw != 0);
		break;
	case VALUE_POINTER:
		pbuf__uint_set(b, DA_POINTER, v->raw);
		break;
	default:
		pbuf__str(b, DA_STRING, v->text);
		break;
	}
	pbuf__close(b, a);
}

void pkt_end_values(struct pbuf *b, uint32_t seq, bool inferred, const struct frame_values *v,
		    const struct frame_costs *c, uint64_t delta)
{
	size_t m = open_packet(b), te, a;

	pbuf__uint_set(b, TP_SEQ_ID, seq);
	pbuf__uint_set(b, TP_SEQUENCE_FLAGS, SEQ_NEEDS);
	te = pbuf__open(b, TP_TRACK_EVENT);
	pbuf__uint_set(b, TE_TYPE, TYPE_SLICE_END);
	if (inferred) {
		a = pbuf__open(b, TE_DEBUG_ANNOTATIONS);
		pbuf__str(b, DA_NAME, "exit_inferred");
		pbuf__uint_set(b, DA_BOOL, 1);
		pbuf__close(b, a);
	}
	for (uint32_t i = 0; v && i < v->n; i++)
		value_ann(b, &v->v[i]);
	if (c)
		pkt_costs(b, c);
	pbuf__close(b, te);
	pbuf__uint_set(b, TP_TIMESTAMP, delta);
	pbuf__close(b, m);
}

static void uint_ann(struct pbuf *b, const char *name, uint64_t v)
{
	size_t a = pbuf__open(b, TE_DEBUG_ANNOTATIONS);

	pbuf__uint_set(b, 3, v); /* uint_value */
	pbuf__str(b, 10, name);
	pbuf__close(b, a);
}

static void str_ann(struct pbuf *b, const char *name, const char *v)
{
	size_t a = pbuf__open(b, TE_DEBUG_ANNOTATIONS);

	pbuf__str(b, 6, v); /* string_value */
	pbuf__str(b, 10, name);
	pbuf__close(b, a);
}

/* An INSTANT on the sledtrace track: meta_open, its annotations, then
 * meta_close with its name. */
static void meta_open(struct pbuf *b, uint64_t ts, size_t *m, size_t *te)
{
	*m = open_packet(b);
	pbuf__uint_set(b, TP_TIMESTAMP, ts);
	pbuf__uint_set(b, TP_SEQ_ID, PERFETTO_META_SEQ);
	*te = pbuf__open(b, TP_TRACK_EVENT);
}

static void meta_close(struct pbuf *b, const char *name, size_t m, size_t te)
{
	pbuf__uint_set(b, TE_TYPE, TYPE_INSTANT);
	pbuf__uint_set(b, TE_TRACK_UUID, PERFETTO_META_UUID);
	pbuf__str(b, TE_NAME, name);
	pbuf__close(b, te);
	pbuf__close(b, m);
}

void pkt_elided(struct pbuf *b, uint64_t ts, const struct pkt_elided *e, const struct pkt_func *f,
		const struct pkt_object *o)
{
	size_t m, te;

	meta_open(b, ts, &m, &te);
	uint_ann(b, "pid", e->pid);
	uint_ann(b, "tid", e->tid);
	uint_ann(b, "track", PERFETTO_THREAD_UUID(e->index));
	uint_ann(b, "calls", e->calls);
	uint_ann(b, "total_ns", e->total_ns);
	uint_ann(b, "line", f->line);
	str_ann(b, "function", f->name);
	if (f->file)
		str_ann(b, "file", f->file);
	if (f->mangled)
		str_ann(b, "mangled", f->mangled);
	if (o) {
		str_ann(b, "object", o->path);
		str_ann(b, "build_id", o->build_id);
	}
	if (f->addr)
		uint_ann(b, "addr", f->addr);
	meta_close(b, PERFETTO_ELIDED_EVENT, m, te);
}

void pkt_gap(struct pbuf *b, uint64_t ts, const struct trace_gap *g)
{
	size_t m, te;

	meta_open(b, ts, &m, &te);
	uint_ann(b, "pid", g->pid);
	uint_ann(b, "start_ns", g->start_ns);
	uint_ann(b, "end_ns", g->end_ns);
	str_ann(b, "why", g->why);
	if (g->object)
		str_ann(b, "object", g->object);
	meta_close(b, PERFETTO_GAP_EVENT, m, te);
}

/* Each counter under its model name (model/trace_stats.h). */
void pkt_stats(struct pbuf *b, uint64_t ts, const struct trace_stats *st)
{
	size_t m, te;

	meta_open(b, ts, &m, &te);
	for (size_t i = 0; i < trace_stat_nfields; i++)
		uint_ann(b, trace_stat_fields[i].name, trace_stats__get(st, i));
	meta_close(b, PERFETTO_STATS_EVENT, m, te);
}

/* { trusted_packet_sequence_id, compressed_packets } framed as a packet;
 * the compressed bytes themselves follow it in the file. */
size_t pkt_chunk_head(uint8_t *p, uint32_t seq, size_t clen)
{
	size_t body = 1 + pbuf__varint_len(seq) + 2 + pbuf__varint_len(clen) + clen;
	uint8_t *q = p;

	*q++ = 1 << 3 | PB_LEN;
	q = pbuf__put_varint(q, body);
	*q++ = TP_SEQ_ID << 3 | PB_VARINT;
	q = pbuf__put_varint(q, seq);
	q = pbuf__put_varint(q, (uint64_t)TP_COMPRESSED << 3 | PB_LEN);
	q = pbuf__put_varint(q, clen);
	return (size_t)(q - p);
}
