// SPDX-License-Identifier: MIT
/* gzout.c: see gzout.h.  zlib's deflate with a gzip wrapper (windowBits
 * 15 + 16); output goes out in 64 KiB blocks so memory stays flat. */
#include <errno.h>
#include <stdbool.h>
#include <assert.h>
#include <stdlib.h>
#include <unistd.h>
#include <zlib.h>

#include "format/codec/gzout.h"

#define GZ_BLOCK (64u << 10)

struct gzout {
	FILE *f;
	z_stream z;
	bool finished;
	unsigned char out[GZ_BLOCK];
};

int gzout__new(FILE *f, int level, struct gzout **out)
{
	struct gzout *g = calloc(1, sizeof(*g));

	if (!g)
		return -ENOMEM;
	if (deflateInit2(&g->z, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
		free(g);
		return -ENOMEM;
	}
	g->f = f;
	*out = g;
	return 0;
}

static int pump(struct gzout *g, int flush)
{
	int zr;

	do {
		size_t have;

		g->z.next_out = g->out;
		g->z.avail_out = sizeof(g->out);
		zr = deflate(&g->z, flush);
		if (zr == Z_STREAM_ERROR)
			return -EINVAL;
		have = sizeof(g->out) - g->z.avail_out;
		if (have && fwrite(g->out, 1, have, g->f) != have)
			return -EIO;
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
	return ferror(g->f) ? -EIO : 0;
}

void gzout__free(struct gzout *g)
{
	if (!g)
		return;
	deflateEnd(&g->z);
	free(g);
}

int gzout__copy_fd(int fd, FILE *f)
{
	struct gzout *g = NULL;
	static_assert(GZ_BLOCK <= (1u << 20), "one block on the stack");
	unsigned char buf[GZ_BLOCK];
	off_t off = 0;
	ssize_t n;
	int err = gzout__new(f, 6, &g);

	while (!err && (n = pread(fd, buf, sizeof(buf), off)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = -errno;
			break;
		}
		err = gzout__write(g, buf, (size_t)n);
		off += n;
	}
	if (!err)
		err = gzout__finish(g);
	gzout__free(g);
	return err;
}
