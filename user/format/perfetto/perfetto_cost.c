// SPDX-License-Identifier: MIT
/* perfetto_cost.c: a trace file read for a sink (perfetto_reader__read,
 * perfetto_reader.h): once, by perfetto_reader.c, or twice when the sink
 * needs the trace's probe cost before the calls (frame_sink_ops.probe_cost:
 * compensation per call).  The cost is in the stats, which a trace ends
 * with, so the first read is of its last packet only (the stats the writer
 * flushes last), then the whole.  A trace whose stats lack the cost (an
 * older sledtrace's) or whose last packet holds none (cut short) is read
 * whole the first time, the way its calls calibrate the cost
 * (model/frames.c), or to fail as a plain read fails.  Standard input is
 * copied to an unnamed temporary file first, so that it can be read
 * twice.  perfetto_reader.c calls nothing here.
 *
 * The first read interprets nothing: the outer packets are only framed (through zlib, which reads a
 * plain file as is and a gzip'd one inflated), and only the last one is
 * unpacked.  Next to a report of a 10 MiB trace (3M calls, 0.45 s of CPU
 * in the release build) it is within the noise; a gzip'd trace must be
 * inflated whole to be framed, +15%. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "format/perfetto/perfetto_layout.h"
#include "format/perfetto/perfetto_reader.h"
#include "model/probe_comp.h"
#include "model/trace_stats.h"
#include "perfetto_trace.pb-c.h"
#include "util/fd_io.h"

typedef Perfetto__Protos__TracePacket Packet;

struct buf {
	uint8_t *p;
	size_t len, cap;
};

static int reserve(struct buf *b, size_t n)
{
	size_t cap = b->cap ? b->cap : 4096;
	uint8_t *p;

	if (n <= b->cap)
		return 0;
	while (cap < n)
		cap *= 2;
	if (!(p = realloc(b->p, cap)))
		return -ENOMEM;
	b->p = p;
	b->cap = cap;
	return 0;
}

/* 1: a varint, 0: a clean end before it, -1: cut short or too long. */
static int gz_varint(gzFile gz, uint64_t *v)
{
	*v = 0;
	for (unsigned shift = 0; shift < 64; shift += 7) {
		int c = gzgetc(gz);

		if (c < 0)
			return shift ? -1 : 0;
		*v |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80))
			return 1;
	}
	return -1;
}

/* The trace's last outer packet into *last; false when the framing is off
 * anywhere (the second read says where). */
static bool last_packet(int fd, struct buf *last)
{
	int dfd = lseek(fd, 0, SEEK_SET) ? -1 : fcntl(fd, F_DUPFD_CLOEXEC, 0);
	gzFile gz = dfd >= 0 ? gzdopen(dfd, "rb") : NULL;
	uint64_t tag, len;
	bool ok = gz != NULL;
	int rc = 0;

	if (!gz && dfd >= 0)
		close(dfd);
	if (gz)
		gzbuffer(gz, 256 << 10);
	while (ok && (rc = gz_varint(gz, &tag)) > 0) {
		ok = tag == 0x0a && gz_varint(gz, &len) > 0 && len <= PERFETTO_MAX_PACKET &&
		     !reserve(last, len ? (size_t)len : 1) &&
		     gzread(gz, last->p, (unsigned)len) == (int)len;
		last->len = (size_t)len;
	}
	if (gz)
		gzclose(gz);
	return ok && rc == 0 && last->p;
}

/* pkt's stats event into *st; false when pkt is no stats event. */
static bool stats_of(const Packet *pkt, struct trace_stats *st)
{
	const Perfetto__Protos__TrackEvent *ev = pkt->track_event;

	if (!ev || !ev->name || strcmp(ev->name, PERFETTO_STATS_EVENT))
		return false;
	for (size_t i = 0; i < trace_stat_nfields; i++)
		for (size_t k = 0; k < ev->n_debug_annotations; k++)
			if (ev->debug_annotations[k]->name &&
			    !strcmp(ev->debug_annotations[k]->name, trace_stat_fields[i].name))
				*trace_stats__field(st, i) = ev->debug_annotations[k]->uint_value;
	return true;
}

static bool inflate_into(const ProtobufCBinaryData *in, struct buf *out)
{
	z_stream z = { 0 };
	int zr = Z_OK;

	if (inflateInit(&z) != Z_OK)
		return false;
	z.next_in = in->data;
	z.avail_in = (uInt)in->len;
	while (zr == Z_OK) {
		if (z.total_out == out->cap &&
		    (out->cap >= PERFETTO_MAX_CHUNK || reserve(out, out->cap + 1)))
			break;
		z.next_out = out->p + z.total_out;
		z.avail_out = (uInt)(out->cap - z.total_out);
		zr = inflate(&z, Z_NO_FLUSH);
	}
	out->len = z.total_out;
	inflateEnd(&z);
	return zr == Z_STREAM_END;
}

/* The last stats event among the packets of an inflated chunk. */
static bool stats_in_chunk(const struct buf *chunk, struct trace_stats *st)
{
	const uint8_t *p = chunk->p, *end = chunk->p + chunk->len;
	bool found = false;

	while (p < end) {
		uint64_t tag = *p++, n = 0;
		Packet *pkt;

		for (unsigned shift = 0; p < end && shift < 64; shift += 7) {
			n |= (uint64_t)(*p & 0x7f) << shift;
			if (!(*p++ & 0x80))
				break;
		}
		if (tag != 0x0a || n > (uint64_t)(end - p))
			return false;
		if ((pkt = perfetto__protos__trace_packet__unpack(NULL, (size_t)n, p))) {
			found |= stats_of(pkt, st);
			perfetto__protos__trace_packet__free_unpacked(pkt, NULL);
		}
		p += n;
	}
	return found;
}

/* The trace's stats, read from its last packet; false when that holds no
 * stats, or stats without a cost. */
static bool cost_from_tail(int fd, struct trace_stats *out)
{
	struct buf last = { 0 }, chunk = { 0 };
	struct trace_stats st = { 0 };
	Packet *pkt = NULL;
	bool found = false;

	if (last_packet(fd, &last))
		pkt = perfetto__protos__trace_packet__unpack(NULL, last.len, last.p);
	if (pkt && pkt->has_compressed_packets)
		found = inflate_into(&pkt->compressed_packets, &chunk) &&
			stats_in_chunk(&chunk, &st);
	else if (pkt)
		found = stats_of(pkt, &st);
	if (pkt)
		perfetto__protos__trace_packet__free_unpacked(pkt, NULL);
	free(last.p);
	free(chunk.p);
	*out = st;
	return found && st.probe_cost_ns;
}

static int keep_stats(void *ctx, const struct trace_stats *st)
{
	*(struct trace_stats *)ctx = *st;
	return 0;
}

static const struct frame_sink_ops stats_only_ops = {
	.stats = keep_stats,
};

/* The whole trace read once for its stats, with the cost its calls
 * calibrate when the trace has none (or fails as the second read would). */
static int cost_from_calls(int fd, const char *name, struct trace_stats *out, char *err,
			   size_t errlen)
{
	struct trace_stats st = { 0 };
	struct frame_sink sink = { .ops = &stats_only_ops, .ctx = &st };
	int dfd = lseek(fd, 0, SEEK_SET) ? -1 : fcntl(fd, F_DUPFD_CLOEXEC, 0);
	int rc;

	if (dfd < 0) {
		snprintf(err, errlen, "%s: %s", name, strerror(errno));
		return -errno;
	}
	rc = perfetto_reader__read_fd(dfd, name, &sink, err, errlen);
	*out = st;
	return rc;
}

/* A pipe or terminal cannot be read twice: its bytes go to an unnamed
 * temporary file, which replaces *fd. */
static int rereadable(int *fd, const char *name, char *err, size_t errlen)
{
	struct stat st;
	char buf[64 << 10];
	FILE *tmp;
	ssize_t n;
	int rc = 0, copy;

	if (fstat(*fd, &st) || S_ISREG(st.st_mode) || S_ISDIR(st.st_mode))
		return 0; /* the reader says what is wrong with it */
	if (!(tmp = tmpfile()))
		rc = -errno;
	while (!rc && (n = read(*fd, buf, sizeof(buf))) != 0)
		rc = n < 0 ? (errno == EINTR ? 0 : -errno)
			   : fd_io__write_all(fileno(tmp), buf, (size_t)n);
	copy = rc ? -1 : fcntl(fileno(tmp), F_DUPFD_CLOEXEC, 0);
	if (!rc && copy < 0)
		rc = -errno;
	if (tmp)
		fclose(tmp);
	if (rc) {
		snprintf(err, errlen, "%s: cannot keep a copy to read twice: %s", name,
			 strerror(-rc));
		return rc;
	}
	close(*fd);
	*fd = copy;
	return 0;
}

/* As perfetto_reader__read_fd (fd is closed), with sink->ops->probe_cost
 * called before anything else, with the costs the trace's stats stand for
 * (model/probe_comp.h: none when its shortest leaf did real work). */
static int read_twice(int fd, const char *name, const struct frame_sink *sink, char *err,
		      size_t errlen)
{
	struct trace_stats st = { 0 };
	struct comp_cost cost;
	int rc = rereadable(&fd, name, err, errlen);

	if (!rc && !cost_from_tail(fd, &st))
		rc = cost_from_calls(fd, name, &st, err, errlen);
	cost = comp__costs(st.probe_cost_ns, st.probe_entry_ns, st.probe_exit_ns);
	if (!rc && (rc = sink->ops->probe_cost(sink->ctx, &cost)))
		snprintf(err, errlen, "%s: %s", name, strerror(-rc));
	if (!rc && lseek(fd, 0, SEEK_SET)) {
		rc = -errno;
		snprintf(err, errlen, "%s: %s", name, strerror(errno));
	}
	if (rc) {
		close(fd);
		return rc;
	}
	return perfetto_reader__read_fd(fd, name, sink, err, errlen);
}

int perfetto_reader__read(const char *path, const struct frame_sink *sink, char *err, size_t errlen)
{
	/* "-" is standard input, read as a stream like any pipe. */
	bool in = !strcmp(path, "-");
	const char *name = in ? "standard input" : path;
	int fd = in ? fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 0) : open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", name, strerror(errno));
		return -errno;
	}
	if (sink->ops->probe_cost)
		return read_twice(fd, name, sink, err, errlen);
	return perfetto_reader__read_fd(fd, name, sink, err, errlen);
}
