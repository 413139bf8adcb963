// SPDX-License-Identifier: MIT
/* perfetto_reader.c: reads a Perfetto trace packet by packet (memory is
 * one packet, one inflated chunk and the per-sequence interning tables)
 * and replays its slices into a frame_builder with trace_processor's
 * rules.  Framing, inflating and unpacking are here; what a packet means
 * is perfetto_interp.c's. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "format/perfetto/perfetto_interp.h"
#include "format/perfetto/perfetto_reader.h"
#include "perfetto_trace.pb-c.h"

#define MAX_PACKET PERFETTO_MAX_PACKET
#define MAX_CHUNK PERFETTO_MAX_CHUNK
#define ARENA_BLOCK (64u << 10)

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

struct reader {
	const char *path;
	char *err;
	size_t errlen;
	int fd;
	gzFile gz;	/* a gzip'd trace (.pb.gz), else NULL */
	uint64_t fsize; /* 0 when not a regular file, or gzip'd */
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
	const struct frame_sink *sink;
	struct perfetto_interp *ip;
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

	if (r->gz) {
		int errnum;

		n = gzread(r->gz, r->rbuf, sizeof(r->rbuf));
		if (n < 0) {
			gzerror(r->gz, &errnum);
			return errnum == Z_ERRNO ? fail(r, -errno, "read: %s", strerror(errno))
						 : fail(r, -EINVAL, "corrupt gzip data");
		}
		r->rlen = (size_t)n;
		r->rpos = 0;
		return n > 0;
	}
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
				return fail(r, -EINVAL,
					    "compressed packets at byte %" PRIu64
					    " inflate beyond %u MiB",
					    r->pkt_off, MAX_CHUNK >> 20);
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

/* ---- the fast path: plain track-event packets, decoded by hand ---- */

/* The one debug annotation the fast path takes: the writer's probe_calls
 * on an END (name 10, uint_value 3), which no reader needs back. */
static bool fast_probe_calls(const uint8_t *p, const uint8_t *end)
{
	static const char name[] = "probe_calls";
	bool named = false;
	uint64_t tag, v;

	while (p < end) {
		if (parse_varint(&p, end, &tag) || parse_varint(&p, end, &v))
			return false;
		if (tag == (10 << 3 | 2) && v == sizeof(name) - 1 && v <= (uint64_t)(end - p) &&
		    !memcmp(p, name, v)) {
			named = true;
			p += v;
		} else if (tag != (3 << 3)) {
			return false;
		}
	}
	return named;
}

/* Varint fields of TrackEvent: type 9, name_iid 10, track_uuid 11,
 * source_location_iid 34, and a probe_calls annotation (4).  False on
 * anything else. */
static bool fast_track_event(const uint8_t *p, const uint8_t *end, struct perfetto_fast_event *e)
{
	uint64_t tag, v;

	while (p < end) {
		if (parse_varint(&p, end, &tag) || parse_varint(&p, end, &v))
			return false;
		if (tag == (4 << 3 | 2) && v <= (uint64_t)(end - p) && fast_probe_calls(p, p + v)) {
			p += v;
			continue;
		}
		if (tag & 7)
			return false;
		switch (tag >> 3) {
		case 9:
			e->type = (int32_t)v;
			break;
		case 10:
			e->has_name_iid = true;
			e->name_iid = v;
			break;
		case 11:
			e->has_track_uuid = true;
			e->track_uuid = v;
			break;
		case 34:
			e->has_srcloc_iid = true;
			e->srcloc_iid = v;
			break;
		default:
			return false;
		}
	}
	return true;
}

/* TracePacket with only timestamp 8, trusted_packet_sequence_id 10,
 * sequence_flags 13, timestamp_clock_id 58 and track_event 11. */
static bool fast_packet(const uint8_t *p, size_t len, struct perfetto_fast_event *e)
{
	const uint8_t *end = p + len;
	bool have_event = false;
	uint64_t tag, v;

	*e = (struct perfetto_fast_event){ 0 };
	while (p < end) {
		if (parse_varint(&p, end, &tag) || parse_varint(&p, end, &v))
			return false;
		switch (tag) {
		case 8 << 3:
			e->has_timestamp = true;
			e->timestamp = v;
			break;
		case 10 << 3:
			e->seq_id = (uint32_t)v;
			break;
		case 13 << 3:
			e->seq_flags = (uint32_t)v;
			break;
		case 58 << 3:
			e->has_clock_id = true;
			e->clock_id = (uint32_t)v;
			break;
		case 11 << 3 | 2:
			if (have_event || v > (uint64_t)(end - p) || !fast_track_event(p, p + v, e))
				return false;
			have_event = true;
			p += v;
			break;
		default:
			return false;
		}
	}
	return have_event;
}

/* 1: handled; 0: needs protobuf-c; <0: error. */
static int try_fast(struct reader *r, const uint8_t *p, size_t len)
{
	struct perfetto_fast_event e;

	if (!len || !fast_packet(p, len, &e)) /* an empty packet may have no buffer */
		return 0;
	return perfetto_interp__fast_event(r->ip, &e);
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
		if ((err = try_fast(r, p, (size_t)n)) < 0)
			return err;
		if (err) {
			p += n;
			continue;
		}
		pkt = perfetto__protos__trace_packet__unpack(&r->inner.pa, (size_t)n, p);
		if (!pkt || pkt->has_compressed_packets)
			return fail(r, -EINVAL, "corrupt packet inside packet at byte %" PRIu64,
				    r->pkt_off);
		err = perfetto_interp__packet(r->ip, pkt);
		arena_reset(&r->inner, false);
		if (err)
			return err;
		p += n;
	}
	return 0;
}

static int read_packet(struct reader *r, size_t len)
{
	Packet *pkt;
	size_t n = 0;
	int err = try_fast(r, r->pkt, len);

	if (err)
		return err < 0 ? err : 0;
	pkt = perfetto__protos__trace_packet__unpack(&r->outer.pa, len, r->pkt);
	if (!pkt)
		return bad_packet(r);
	if (pkt->has_compressed_packets) {
		err = inflate_chunk(r, &pkt->compressed_packets, &n);
		if (!err)
			err = read_chunk(r, n);
	} else {
		err = perfetto_interp__packet(r->ip, pkt);
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
	if (!perfetto_interp__complete(r->ip))
		return truncated(r);
	if ((rc = perfetto_interp__finish(r->ip)))
		return sink_fail(r, rc);
	return 0;
}

static void reader_free(struct reader *r)
{
	perfetto_interp__free(r->ip);
	arena_reset(&r->outer, true);
	arena_reset(&r->inner, true);
	if (r->z_ready)
		inflateEnd(&r->z);
	free(r->pkt);
	free(r->chunk);
	if (r->gz)
		gzclose(r->gz);
	if (r->fd >= 0)
		close(r->fd);
	free(r);
}

/* A trace that starts with gzip's magic is read through zlib. */
static int open_gzip(struct reader *r)
{
	uint8_t magic[2];
	int fd;

	if (pread(r->fd, magic, 2, 0) != 2 || magic[0] != 0x1f || magic[1] != 0x8b)
		return 0;
	if ((fd = dup(r->fd)) < 0 || !(r->gz = gzdopen(fd, "rb"))) {
		if (fd >= 0)
			close(fd);
		return fail(r, -ENOMEM, "out of memory");
	}
	gzbuffer(r->gz, 256 << 10);
	r->fsize = 0; /* packet lengths cannot be checked against it */
	return 0;
}

/* Takes fd over: it is closed with the reader. */
static int reader_open(struct reader *r, int fd)
{
	struct stat st;

	r->fd = fd;
	if (fstat(r->fd, &st))
		return fail(r, -errno, "%s", strerror(errno));
	if (S_ISDIR(st.st_mode))
		return fail(r, -EISDIR, "%s", strerror(EISDIR));
	r->fsize = S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0;
	if (r->fsize && open_gzip(r))
		return -ENOMEM;
	if (inflateInit(&r->z) != Z_OK)
		return fail(r, -ENOMEM, "out of memory");
	r->z_ready = true;
	if (!(r->ip = perfetto_interp__new(r->sink)))
		return fail(r, -ENOMEM, "out of memory");
	return 0;
}

int perfetto_reader__read_fd(int fd, const char *name, const struct frame_sink *sink, char *err,
			     size_t errlen)
{
	struct reader *r = calloc(1, sizeof(*r));
	int rc;

	if (errlen)
		err[0] = '\0';
	if (!r) {
		close(fd);
		snprintf(err, errlen, "%s: out of memory", name);
		return -ENOMEM;
	}
	r->path = name;
	r->err = err;
	r->errlen = errlen;
	r->sink = sink;
	arena_init(&r->outer);
	arena_init(&r->inner);
	rc = reader_open(r, fd);
	if (!rc)
		rc = read_all(r);
	reader_free(r);
	return rc;
}
