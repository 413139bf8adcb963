/* SPDX-License-Identifier: MIT */
/* gzout.h: a gzip stream onto a byte sink, for outputs that tools expect
 * gzip'd (pprof profiles, .gz traces).  It is a byte sink itself, so a
 * streaming writer writes gzip as it writes a plain file.  The sink below
 * stays the caller's: output_file's atomic create/commit still decides
 * whether the file appears. */
#ifndef SLEDTRACE_GZOUT_H
#define SLEDTRACE_GZOUT_H

#include <stddef.h>
#include <stdint.h>

#include "util/byte_sink.h"

struct gzout;

/* level: zlib's 0 (stored) to 9, or -1 for its default. */
int gzout__new(struct byte_sink out, int level, struct gzout **g);
/* 0 or a negative errno: the sink's, or -EINVAL from zlib. */
int gzout__write(struct gzout *g, const void *data, size_t len);
/* Writes out everything given so far (a sync point): a sink that cannot
 * be written fails here, not at the end. */
int gzout__flush(struct gzout *g);
/* Ends the gzip member (trailer with CRC and length). */
int gzout__finish(struct gzout *g);
/* gzout__write as a byte sink. */
struct byte_sink gzout__sink(struct gzout *g);
/* Bytes of gzip written to the sink so far. */
uint64_t gzout__bytes(const struct gzout *g);
void gzout__free(struct gzout *g);

#endif
