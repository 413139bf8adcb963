/* SPDX-License-Identifier: MIT */
/* byte_sink.h: where a streaming writer's bytes go.  Writers (the Perfetto
 * trace, the gzip stream) write through one, so a plain file and a gzip
 * stream onto that file are two sinks of the same writer. */
#ifndef SLEDTRACE_BYTE_SINK_H
#define SLEDTRACE_BYTE_SINK_H

#include <stddef.h>
#include <stdio.h>

struct byte_sink {
	/* Writes all n bytes; 0 or a negative errno. */
	int (*write)(void *ctx, const void *p, size_t n);
	void *ctx;
};

static inline int byte_sink__write(const struct byte_sink *s, const void *p, size_t n)
{
	return s->write(s->ctx, p, n);
}

/* A descriptor, written with fd_io__write_all; the caller keeps it open. */
struct byte_sink byte_sink__fd(int fd);
/* A stdio stream; a failed fwrite is -EIO. */
struct byte_sink byte_sink__file(FILE *f);

#endif
