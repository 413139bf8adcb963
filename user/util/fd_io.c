// SPDX-License-Identifier: MIT
/* fd_io.c: see fd_io.h. */
#include <errno.h>
#include <stdint.h>
#include <unistd.h>

#include "util/fd_io.h"

int fd_io__write_all(int fd, const void *buf, size_t n)
{
	const uint8_t *p = buf;

	while (n) {
		ssize_t r = write(fd, p, n);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return r < 0 ? -errno : -EIO;
		p += r;
		n -= (size_t)r;
	}
	return 0;
}
