// SPDX-License-Identifier: MIT
/* gzout.c: see gzout.h.  zlib's deflate with a gzip wrapper (windowBits
 * 15 + 16); output goes out in 64 KiB blocks so memory stays flat. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <zlib.h>

#include "format/codec/gzout.h"

#define GZ_BLOCK (64u << 10)

struct gzout {
	struct byte_sink out;
	z_stream z;
	bool finished;
	uint64_t bytes;
	unsigned char buf[GZ_BLOCK];
};

int gzout__new(struct byte_sink out, int level, struct gzout **g)
{
	struct gzout *z = calloc(1, sizeof(*z));

	if (!z)
		return -ENOMEM;
	if (deflateInit2(&z->z, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
		free(z);
		return -ENOMEM;
	}
	z->out = out;
	*g = z;
	return 0;
}

static int pump(struct gzout *g, int flush)
{
	int zr, err;

	do {
		size_t have;

		g->z.next_out = g->buf;
		g->z.avail_out = sizeof(g->buf);
		zr = deflate(&g->z, flush);
		if (zr == Z_STREAM_ERROR)
			return -EINVAL;
		have = sizeof(g->buf) - g->z.avail_out;
		if (have && (err = byte_sink__write(&g->out, g->buf, have)))
			return err;
		g->bytes += have;
	} while (g->z.avail_out == 0 || (flush == Z_FINISH && zr != Z_STREAM_END));
	return 0;
}

int gzout__write(struct gzout *g, const void *data, size_t len)
{
	const unsigned char *p = data;

	while (len) {
		uInt n = len > (1u << 30) ? (1u << 30) : (uInt)len;
		int err;

		g->z.next_in = (unsigned char *)p;
		g->z.avail_in = n;
		if ((err = pump(g, Z_NO_FLUSH)))
			return err;
		p += n;
		len -= n;
	}
	return 0;
}

int gzout__flush(struct gzout *g)
{
	g->z.next_in = NULL;
	g->z.avail_in = 0;
	return pump(g, Z_SYNC_FLUSH);
}

int gzout__finish(struct gzout *g)
{
	int err;

	if (g->finished)
		return 0;
	g->z.next_in = NULL;
	g->z.avail_in = 0;
	if ((err = pump(g, Z_FINISH)))
		return err;
	g->finished = true;
	return 0;
}

static int sink_write(void *ctx, const void *p, size_t n)
{
	return gzout__write(ctx, p, n);
}

struct byte_sink gzout__sink(struct gzout *g)
{
	return (struct byte_sink){ .write = sink_write, .ctx = g };
}

uint64_t gzout__bytes(const struct gzout *g)
{
	return g->bytes;
}

void gzout__free(struct gzout *g)
{
	if (!g)
		return;
	deflateEnd(&g->z);
	free(g);
}
