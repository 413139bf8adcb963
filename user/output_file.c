/* output_file.c: see output_file.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "output_file.h"

int output_file__create(struct output_file *of, const char *path, char *err, size_t errlen)
{
	of->fd = -1;
	if (snprintf(of->path, sizeof(of->path), "%s", path) >= (int)sizeof(of->path)) {
		snprintf(err, errlen, "%s: file name too long", path);
		return -ENAMETOOLONG;
	}
	snprintf(of->tmp, sizeof(of->tmp), "%s.XXXXXX", path);
	of->fd = mkostemp(of->tmp, O_CLOEXEC);
	if (of->fd < 0) {
		int e = errno;

		snprintf(err, errlen, "cannot create %s: %s", path, strerror(e));
		return -e;
	}
	/* mkostemp makes 0600; a trace is an ordinary file. */
	(void)fchmod(of->fd, 0644);
	return 0;
}

int output_file__commit(struct output_file *of, char *err, size_t errlen)
{
	int e = 0;

	if (close(of->fd))
		e = errno;
	of->fd = -1;
	if (!e && rename(of->tmp, of->path))
		e = errno;
	if (e) {
		unlink(of->tmp);
		snprintf(err, errlen, "cannot write %s: %s", of->path, strerror(e));
		return -e;
	}
	return 0;
}

void output_file__abort(struct output_file *of)
{
	if (of->fd < 0)
		return;
	close(of->fd);
	of->fd = -1;
	unlink(of->tmp);
}
