/* SPDX-License-Identifier: MIT */
/* gzout.h: a gzip stream onto a stdio FILE, for outputs that tools expect
 * gzip'd (pprof profiles, .pb.gz traces).  The FILE stays the caller's:
 * output_file's atomic create/commit still decides whether it appears. */
#ifndef SLEDTRACE_GZOUT_H
#define SLEDTRACE_GZOUT_H

#include <stddef.h>
#include <stdio.h>

struct gzout;

/* level: zlib's 1..9, or -1 for its default. */
int gzout__new(FILE *f, int level, struct gzout **out);
/* Return 0 or a negative errno (-EIO when the FILE failed). */
int gzout__write(struct gzout *g, const void *data, size_t len);
/* Ends the gzip member (trailer with CRC and length); the FILE is not closed. */
int gzout__finish(struct gzout *g);
void gzout__free(struct gzout *g);
/* Gzips everything in fd (from offset 0, with pread) onto f. */
int gzout__copy_fd(int fd, FILE *f);

#endif
