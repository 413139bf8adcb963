// SPDX-License-Identifier: MIT
/* byte_sink.c: see byte_sink.h. */
#include <errno.h>
#include <stdint.h>

#include "util/byte_sink.h"
#include "util/fd_io.h"

/* The descriptor is the context itself, so the sink borrows nothing. */
static int fd_write(void *ctx, const void *p, size_t n)
{
	return fd_io__write_all((int)(intptr_t)ctx, p, n);
}

struct byte_sink byte_sink__fd(int fd)
{
	return (struct byte_sink){ .write = fd_write, .ctx = (void *)(intptr_t)fd };
}

static int file_write(void *ctx, const void *p, size_t n)
{
	return fwrite(p, 1, n, ctx) == n ? 0 : -EIO;
}

struct byte_sink byte_sink__file(FILE *f)
{
	return (struct byte_sink){ .write = file_write, .ctx = f };
}
