/* perfetto_reader.c: reads a Perfetto trace packet by packet (memory is
 * one packet, one inflated chunk and the per-sequence interning tables)
 * and replays its slices into a frame_builder with trace_processor's
 * rules.  Framing, inflating and unpacking are here; what a packet means
 * is in interpret_packet() and its helpers. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "perfetto_reader.h"
#include "perfetto_trace.pb-c.h"
#include "perfetto_writer.h"
#include "u64map.h"

#define MAX_PACKET (64u << 20)  /* one outer packet */
#define MAX_CHUNK (32u << 20)   /* one inflated compressed_packets */
#define ARENA_BLOCK (64u << 10)
#define SEQ_CLEARED 1
#define SEQ_NEEDS 2
#define CLOCK_BOOTTIME_ID 6

typedef Perfetto__Protos__TracePacket Packet;

struct arena_block {
	struct arena_block *next;
	size_t used, cap;
	max_align_t data[];
};

/* protobuf-c allocations of one packet, dropped together after it. */
struct arena {
	struct arena_block *head;
	ProtobufCAllocator pa;
};

struct seq_clock {
	bool set, incremental;
	uint64_t unit, value, ref_value, ref_boot;
};

struct pr_seq {
	bool valid;
	bool has_clock, has_track;
	uint32_t def_clock;
	uint64_t def_track;
	struct u64map names; /* name iid -> function index */
	struct u64map locs;  /* source location iid -> loc index + 1 */
	struct seq_clock *clocks; /* 64..127, allocated on first snapshot */
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

struct reader {
	const char *path;
	char *err;
	size_t errlen;
	int fd;
	uint64_t fsize; /* 0 when not a regular file */
	uint8_t rbuf[64 << 10];
	size_t rlen, rpos;
	uint64_t roff; /* file offset of rbuf[rpos] */
	uint8_t *pkt, *chunk;
	size_t pktcap, chunkcap;
	uint64_t pkt_off;
	uint64_t npackets;
	struct arena outer, inner;
	z_stream z;
	bool z_ready;
	struct u64map seq_idx, track_idx, proc_idx, func_idx;
	struct pr_seq *seqs;
	struct pr_track *tracks;
	struct pr_proc *procs;
	struct pr_func *funcs; /* index = function id - 1 */
	struct pr_loc *locs;
	size_t nseqs, ntracks, nprocs, nfuncs, nlocs;
	const struct frame_sink *sink_copy;
	struct frame_builder *fb;
	struct trace_stats stats;
	bool saw_meta, saw_stats;
};

static int fail(struct reader *r, int err, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (r->errlen && !r->err[0]) {
		n = snprintf(r->err, r->errlen, "%s: ", r->path);
		va_start(ap, fmt);
		if (n >= 0 && (size_t)n < r->errlen)
			vsnprintf(r->err + n, r->errlen - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return err;
}

static int sink_fail(struct reader *r, int err)
{
	return fail(r, err, "%s", strerror(-err));
}

static void *arena_alloc(void *data, size_t n)
{
	struct arena *a = data;
	struct arena_block *b = a->head;
	size_t cap;

	n = (n + 15) & ~(size_t)15;
	if (!b || b->used + n > b->cap) {
		cap = n > ARENA_BLOCK ? n : ARENA_BLOCK;
		if (!(b = malloc(sizeof(*b) + cap)))
			return NULL;
		b->next = a->head;
		b->used = 0;
		b->cap = cap;
		a->head = b;
	}
	b->used += n;
	return (char *)b->data + b->used - n;
}

static void arena_nofree(void *data, void *p)
{
	(void)data;
	(void)p;
}

/* Keeps one standard block so most packets allocate nothing. */
static void arena_reset(struct arena *a, bool all)
{
	struct arena_block *b = a->head, *keep = NULL, *n;

	for (; b; b = n) {
		n = b->next;
		if (!all && !keep && b->cap == ARENA_BLOCK) {
			keep = b;
			keep->next = NULL;
			keep->used = 0;
		} else {
			free(b);
		}
	}
	a->head = keep;
}

static void arena_init(struct arena *a)
{
	a->head = NULL;
	a->pa.alloc = arena_alloc;
	a->pa.free = arena_nofree;
	a->pa.allocator_data = a;
}

/* ---- input ---- */

static int fill(struct reader *r)
{
	ssize_t n;

	do
		n = read(r->fd, r->rbuf, sizeof(r->rbuf));
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return fail(r, -errno, "read: %s", strerror(errno));
	r->rlen = (size_t)n;
	r->rpos = 0;
	return n > 0;
}

/* 1: a byte, 0: end of file, <0: error. */
static int next_byte(struct reader *r, uint8_t *c)
{
	int rc;

	if (r->rpos == r->rlen && (rc = fill(r)) <= 0)
		return rc;
	*c = r->rbuf[r->rpos++];
	r->roff++;
	return 1;
}

static int truncated(struct reader *r)
{
	return fail(r, -EINVAL, "truncated at byte %" PRIu64, r->roff);
}

/* 1: a varint, 0: clean end of file before it, <0: error. */
static int read_varint(struct reader *r, uint64_t *v)
{
	uint8_t c;
	int rc;

	*v = 0;
	for (unsigned shift = 0; shift < 64; shift += 7) {
		if ((rc = next_byte(r, &c)) <= 0)
			return rc < 0 ? rc : shift ? truncated(r) : 0;
		*v |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80))
			return 1;
	}
	return fail(r, -EINVAL, "corrupt packet at byte %" PRIu64, r->pkt_off);
}

static int read_exact(struct reader *r, uint8_t *dst, size_t n)
{
	int rc;

	while (n) {
		size_t k = r->rlen - r->rpos;

		if (!k) {
			if ((rc = fill(r)) < 0)
				return rc;
			if (!rc)
				return truncated(r);
			continue;
		}
		k = k < n ? k : n;
		memcpy(dst, r->rbuf + r->rpos, k);
		r->rpos += k;
		r->roff += k;
		dst += k;
		n -= k;
	}
	return 0;
}

static int reserve(uint8_t **p, size_t *cap, size_t n)
{
	size_t c = *cap ? *cap : 4096;
	uint8_t *q;

	if (n <= *cap)
		return 0;
	while (c < n)
		c *= 2;
	if (!(q = realloc(*p, c)))
		return -ENOMEM;
	*p = q;
	*cap = c;
	return 0;
}

static int bad_packet(struct reader *r)
{
	if (!r->npackets)
		return fail(r, -EINVAL, "not a Perfetto trace");
	return fail(r, -EINVAL, "corrupt packet at byte %" PRIu64, r->pkt_off);
}


/* ---- interning and tracks ---- */

static uint64_t name_hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	while (*s)
		h = (h ^ (uint8_t)*s++) * 1099511628211ULL;
	return h ? h : 1;
}

/* Function index (id - 1) for a name; names are the functions' identity. */
static int func_for_name(struct reader *r, const char *name, uint64_t *out)
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

static int announce(struct reader *r, uint64_t idx, const char *file, uint32_t line)
{
	struct trace_function fn = { .id = (uint32_t)idx + 1, .name = r->funcs[idx].name,
				     .file = file, .line = file ? line : 0 };

	if (r->funcs[idx].announced)
		return 0;
	r->funcs[idx].announced = true;
	return frame_builder__function(r->fb, &fn);
}

static void seq_reset(struct pr_seq *s)
{
	u64map__clear(&s->names);
	u64map__clear(&s->locs);
	free(s->clocks);
	*s = (struct pr_seq){ 0 };
}

static struct pr_seq *seq_get(struct reader *r, uint32_t id)
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
static int intern(struct reader *r, struct pr_seq *s, const Perfetto__Protos__InternedData *d)
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
	return 0;
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

static int process_desc(struct reader *r, const Perfetto__Protos__ProcessDescriptor *pd)
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

static int track_desc(struct reader *r, const Perfetto__Protos__TrackDescriptor *td)
{
	const Perfetto__Protos__ThreadDescriptor *th = td->thread;
	struct pr_track *t;
	int err;

	if (td->process && (err = process_desc(r, td->process)))
		return err;
	if (td->uuid == PERFETTO_META_UUID && td->name && !strcmp(td->name, PERFETTO_META_TRACK))
		r->saw_meta = true;
	if (!td->has_uuid || !th || !th->has_tid || u64map__find(&r->track_idx, td->uuid))
		return 0;
	if (!(t = realloc(r->tracks, (r->ntracks + 1) * sizeof(*t))))
		return -ENOMEM;
	r->tracks = t;
	t = &t[r->ntracks];
	*t = (struct pr_track){ .pid = (uint32_t)th->pid, .tid = (uint32_t)th->tid,
				.thread = true };
	if (!(t->name = strdup(th->thread_name ? th->thread_name : "")))
		return -ENOMEM;
	return u64map__put(&r->track_idx, td->uuid, r->ntracks++);
}

static int bind_thread(struct reader *r, uint32_t pid, uint32_t tid, const char *name,
		       struct fb_thread **out)
{
	const struct pr_proc *p = NULL;
	uint64_t idx;

	if ((*out = frame_builder__find(r->fb, tid)))
		return 0;
	if (u64map__get(&r->proc_idx, (uint64_t)pid + 1, &idx))
		p = &r->procs[idx];
	return frame_builder__thread(r->fb, pid, tid, name, p ? p->name : "",
				     p ? p->cmdline : NULL, out);
}

/* NULL (and 0) for tracks that are not thread tracks: their events are ignored. */
static int track_thread(struct reader *r, uint64_t uuid, struct fb_thread **out)
{
	uint64_t idx;
	struct pr_track *t;
	int err;

	*out = NULL;
	if (!u64map__get(&r->track_idx, uuid, &idx))
		return 0;
	t = &r->tracks[idx];
	if (!t->t && (err = bind_thread(r, t->pid, t->tid, t->name, &t->t)))
		return err;
	*out = t->t;
	return 0;
}

/* ---- clocks ---- */

static int clock_snapshot(struct pr_seq *s, const Perfetto__Protos__ClockSnapshot *cs)
{
	uint64_t ref = 0;
	bool have_ref = false;

	for (size_t i = 0; i < cs->n_clocks; i++) {
		uint32_t id = cs->clocks[i]->clock_id;

		if (id == CLOCK_BOOTTIME_ID || (!have_ref && (id < 64 || id > 127))) {
			ref = cs->clocks[i]->timestamp;
			have_ref = id == CLOCK_BOOTTIME_ID;
		}
	}
	for (size_t i = 0; i < cs->n_clocks; i++) {
		const Perfetto__Protos__ClockSnapshot__Clock *c = cs->clocks[i];

		if (c->clock_id < 64 || c->clock_id > 127)
			continue;
		if (!s->clocks && !(s->clocks = calloc(64, sizeof(*s->clocks))))
			return -ENOMEM;
		s->clocks[c->clock_id - 64] = (struct seq_clock){
			.set = true, .incremental = c->is_incremental,
			.unit = c->has_unit_multiplier_ns ? c->unit_multiplier_ns : 1,
			.value = c->timestamp, .ref_value = c->timestamp, .ref_boot = ref };
	}
	return 0;
}

/* Boot-time ns of a packet; false when its clock is undefined here.
 * Builtin clocks other than BOOTTIME are taken as they are. */
static bool packet_time(struct pr_seq *s, const Packet *p, uint64_t *ts)
{
	uint32_t id = p->has_timestamp_clock_id ? p->timestamp_clock_id
			: s->has_clock ? s->def_clock : CLOCK_BOOTTIME_ID;
	struct seq_clock *c;
	uint64_t v;

	if (id < 64 || id > 127) {
		*ts = p->timestamp;
		return true;
	}
	if (!s->clocks || !(c = &s->clocks[id - 64])->set)
		return false;
	v = c->incremental ? (c->value += p->timestamp) : p->timestamp;
	*ts = c->ref_boot + (v - c->ref_value) * c->unit;
	return true;
}

/* ---- events ---- */

static uint64_t ann_uint(const Perfetto__Protos__TrackEvent *ev, const char *name)
{
	for (size_t i = 0; i < ev->n_debug_annotations; i++)
		if (ev->debug_annotations[i]->name &&
		    !strcmp(ev->debug_annotations[i]->name, name))
			return ev->debug_annotations[i]->uint_value;
	return 0;
}

static const char *ann_str(const Perfetto__Protos__TrackEvent *ev, const char *name)
{
	for (size_t i = 0; i < ev->n_debug_annotations; i++)
		if (ev->debug_annotations[i]->name &&
		    !strcmp(ev->debug_annotations[i]->name, name))
			return ev->debug_annotations[i]->string_value;
	return NULL;
}

static int elided_event(struct reader *r, const Perfetto__Protos__TrackEvent *ev)
{
	const char *name = ann_str(ev, "function");
	uint32_t tid = (uint32_t)ann_uint(ev, "tid");
	uint64_t idx, uuid = PERFETTO_THREAD_UUID(tid);
	struct fb_thread *t;
	int err;

	if (!name)
		return 0;
	if ((err = func_for_name(r, name, &idx)) ||
	    (err = announce(r, idx, ann_str(ev, "file"), (uint32_t)ann_uint(ev, "line"))))
		return err;
	if ((err = track_thread(r, uuid, &t)))
		return err;
	if (!t && (err = bind_thread(r, (uint32_t)ann_uint(ev, "pid"), tid, "", &t)))
		return err;
	return frame_builder__elided(r->fb, t, (uint32_t)idx + 1, ann_uint(ev, "calls"),
				     ann_uint(ev, "total_ns"));
}

static int meta_event(struct reader *r, const Perfetto__Protos__TrackEvent *ev)
{
	if (!ev->name)
		return 0;
	if (!strcmp(ev->name, PERFETTO_ELIDED_EVENT))
		return elided_event(r, ev);
	if (strcmp(ev->name, PERFETTO_STATS_EVENT))
		return 0;
	for (size_t i = 0; i < perfetto_stat_nfields; i++)
		*(uint64_t *)((char *)&r->stats + perfetto_stat_fields[i].offset) =
			ann_uint(ev, perfetto_stat_fields[i].name);
	r->saw_stats = true;
	return 0;
}

static int slice_begin(struct reader *r, struct pr_seq *s, struct fb_thread *t,
		       const Perfetto__Protos__TrackEvent *ev, uint64_t ts)
{
	const struct pr_loc *loc = NULL;
	uint64_t idx, li;
	int err;

	/* trace_processor drops what nests deeper than this */
	if (frame_builder__depth(t) >= PERFETTO_MAX_DEPTH)
		return 0;
	if (ev->has_name_iid && u64map__get(&s->names, ev->name_iid, &idx))
		err = 0;
	else
		err = func_for_name(r, ev->name ? ev->name : "[unknown]", &idx);
	if (err)
		return err;
	if (ev->has_source_location_iid && u64map__get(&s->locs, ev->source_location_iid, &li))
		loc = &r->locs[li - 1];
	if ((err = announce(r, idx, loc ? loc->file : NULL, loc ? loc->line : 0)))
		return err;
	return frame_builder__enter(r->fb, t, (uint32_t)idx + 1, ts, 0);
}

static int track_event(struct reader *r, struct pr_seq *s,
		       const Perfetto__Protos__TrackEvent *ev, uint64_t ts)
{
	uint64_t uuid = ev->has_track_uuid ? ev->track_uuid : s->def_track;
	struct fb_thread *t;
	int err;

	if (!ev->has_track_uuid && !s->has_track)
		return 0;
	if (uuid == PERFETTO_META_UUID && ev->type == PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_INSTANT)
		return meta_event(r, ev);
	if (ev->type != PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_BEGIN &&
	    ev->type != PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_END)
		return 0;
	if ((err = track_thread(r, uuid, &t)) || !t)
		return err;
	if (ev->type == PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_BEGIN)
		return slice_begin(r, s, t, ev, ts);
	if (!frame_builder__depth(t))
		return 0;
	return frame_builder__leave(r->fb, t, ts, FRAME_RETURNED);
}

static int interpret_packet(struct reader *r, const Packet *p)
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

		s->has_clock = d->has_timestamp_clock_id;
		s->def_clock = d->timestamp_clock_id;
		s->has_track = d->track_event_defaults && d->track_event_defaults->has_track_uuid;
		s->def_track = s->has_track ? d->track_event_defaults->track_uuid : 0;
	}
	if ((p->interned_data && (err = intern(r, s, p->interned_data))) ||
	    (p->clock_snapshot && (err = clock_snapshot(s, p->clock_snapshot))) ||
	    (p->track_descriptor && (err = track_desc(r, p->track_descriptor))))
		return err;
	if (p->has_timestamp && !packet_time(s, p, &ts))
		return 0;
	return p->track_event ? track_event(r, s, p->track_event, ts) : 0;
}

/* ---- packets and chunks ---- */

static int inflate_chunk(struct reader *r, const ProtobufCBinaryData *in, size_t *out)
{
	int zr = Z_OK;

	if (inflateReset(&r->z) != Z_OK)
		return fail(r, -EIO, "zlib: cannot reset");
	r->z.next_in = in->data;
	r->z.avail_in = (uInt)in->len;
	r->z.total_out = 0;
	while (zr != Z_STREAM_END) {
		if (r->z.total_out == r->chunkcap) {
			if (r->chunkcap >= MAX_CHUNK)
				return fail(r, -EINVAL, "compressed packets at byte %" PRIu64
					    " inflate beyond %u MiB", r->pkt_off, MAX_CHUNK >> 20);
			if (reserve(&r->chunk, &r->chunkcap, r->chunkcap + 1))
				return -ENOMEM;
		}
		r->z.next_out = r->chunk + r->z.total_out;
		r->z.avail_out = (uInt)(r->chunkcap - r->z.total_out);
		zr = inflate(&r->z, Z_NO_FLUSH);
		if (zr != Z_OK && zr != Z_STREAM_END)
			break;
	}
	if (zr != Z_STREAM_END || r->z.avail_in)
		return fail(r, -EINVAL, "bad compressed data in packet at byte %" PRIu64,
			    r->pkt_off);
	*out = r->z.total_out;
	return 0;
}

static int parse_varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	*v = 0;
	for (unsigned shift = 0; shift < 64 && *p < end; shift += 7) {
		uint8_t c = *(*p)++;

		*v |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80))
			return 0;
	}
	return -1;
}

/* A chunk is a serialized Trace: a run of field-1 packets. */
static int read_chunk(struct reader *r, size_t len)
{
	const uint8_t *p = r->chunk, *end = r->chunk + len;
	uint64_t tag, n;
	Packet *pkt;
	int err;

	while (p < end) {
		if (parse_varint(&p, end, &tag) || tag != 0x0a || parse_varint(&p, end, &n) ||
		    n > (uint64_t)(end - p))
			return fail(r, -EINVAL, "corrupt compressed packets at byte %" PRIu64,
				    r->pkt_off);
		pkt = perfetto__protos__trace_packet__unpack(&r->inner.pa, (size_t)n, p);
		if (!pkt || pkt->has_compressed_packets)
			return fail(r, -EINVAL, "corrupt packet inside packet at byte %" PRIu64,
				    r->pkt_off);
		err = interpret_packet(r, pkt);
		arena_reset(&r->inner, false);
		if (err)
			return err;
		p += n;
	}
	return 0;
}

static int read_packet(struct reader *r, size_t len)
{
	Packet *pkt = perfetto__protos__trace_packet__unpack(&r->outer.pa, len, r->pkt);
	size_t n = 0;
	int err;

	if (!pkt)
		return bad_packet(r);
	if (pkt->has_compressed_packets) {
		err = inflate_chunk(r, &pkt->compressed_packets, &n);
		if (!err)
			err = read_chunk(r, n);
	} else {
		err = interpret_packet(r, pkt);
	}
	arena_reset(&r->outer, false);
	return err;
}

/* 1: a packet was read, 0: clean end of file, <0: error. */
static int next_packet(struct reader *r)
{
	uint64_t tag, len;
	int rc;

	r->pkt_off = r->roff;
	if ((rc = read_varint(r, &tag)) <= 0)
		return rc;
	if (tag != 0x0a)
		return bad_packet(r);
	if ((rc = read_varint(r, &len)) <= 0)
		return rc < 0 ? rc : truncated(r);
	if (r->fsize && len > r->fsize - r->roff) {
		r->roff = r->fsize;
		return truncated(r);
	}
	if (len > MAX_PACKET)
		return fail(r, -EINVAL, "packet at byte %" PRIu64 " is larger than %u MiB",
			    r->pkt_off, MAX_PACKET >> 20);
	if (reserve(&r->pkt, &r->pktcap, (size_t)len))
		return -ENOMEM;
	if ((rc = read_exact(r, r->pkt, (size_t)len)) || (rc = read_packet(r, (size_t)len)))
		return rc;
	r->npackets++;
	return 1;
}

static int read_all(struct reader *r)
{
	int rc;

	while ((rc = next_packet(r)) > 0)
		;
	if (rc == -ENOMEM)
		return fail(r, rc, "out of memory");
	if (rc < 0)
		return r->err[0] ? rc : sink_fail(r, rc);
	if (!r->npackets)
		return fail(r, -EINVAL, "not a Perfetto trace (empty file)");
	if (r->saw_meta && !r->saw_stats)
		return truncated(r);
	if ((rc = frame_builder__finish(r->fb, &r->stats)))
		return sink_fail(r, rc);
	return 0;
}

static void reader_free(struct reader *r)
{
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
	free(r->seqs);
	free(r->tracks);
	free(r->procs);
	free(r->funcs);
	free(r->locs);
	u64map__clear(&r->seq_idx);
	u64map__clear(&r->track_idx);
	u64map__clear(&r->proc_idx);
	u64map__clear(&r->func_idx);
	arena_reset(&r->outer, true);
	arena_reset(&r->inner, true);
	if (r->z_ready)
		inflateEnd(&r->z);
	free(r->pkt);
	free(r->chunk);
	frame_builder__free(r->fb);
	if (r->fd >= 0)
		close(r->fd);
	free(r);
}

static int reader_open(struct reader *r)
{
	struct stat st;

	if ((r->fd = open(r->path, O_RDONLY | O_CLOEXEC)) < 0)
		return fail(r, -errno, "%s", strerror(errno));
	if (fstat(r->fd, &st))
		return fail(r, -errno, "%s", strerror(errno));
	if (S_ISDIR(st.st_mode))
		return fail(r, -EISDIR, "%s", strerror(EISDIR));
	r->fsize = S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0;
	if (inflateInit(&r->z) != Z_OK)
		return fail(r, -ENOMEM, "out of memory");
	r->z_ready = true;
	if (!(r->fb = frame_builder__new(r->sink_copy)))
		return fail(r, -ENOMEM, "out of memory");
	return 0;
}

int perfetto_reader__read(const char *path, const struct frame_sink *sink,
			  char *err, size_t errlen)
{
	struct reader *r = calloc(1, sizeof(*r));
	int rc;

	if (errlen)
		err[0] = '\0';
	if (!r) {
		snprintf(err, errlen, "%s: out of memory", path);
		return -ENOMEM;
	}
	r->path = path;
	r->err = err;
	r->errlen = errlen;
	r->fd = -1;
	r->sink_copy = sink;
	arena_init(&r->outer);
	arena_init(&r->inner);
	rc = reader_open(r);
	if (!rc)
		rc = read_all(r);
	reader_free(r);
	return rc;
}
