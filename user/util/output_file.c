// SPDX-License-Identifier: MIT
/* output_file.c: see output_file.h.  The file is made with O_TMPFILE where
 * the filesystem allows: it has no name until commit links it in, so even a
 * SIGKILL leaves nothing behind.  Elsewhere a named temporary file is used. */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "util/output_file.h"

static int open_unnamed(struct output_file *of)
{
	char dir[sizeof(of->path)];

	snprintf(dir, sizeof(dir), "%s", of->path);
	of->fd = open(dirname(dir), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);
	of->tmp[0] = 0;
	return of->fd < 0 ? -errno : 0;
}

int output_file__create(struct output_file *of, const char *path, char *err, size_t errlen)
{
	of->fd = -1;
	if (snprintf(of->path, sizeof(of->path), "%s", path) >= (int)sizeof(of->path)) {
		snprintf(err, errlen, "%s: file name too long", path);
		return -ENAMETOOLONG;
	}
	if (!open_unnamed(of))
		return 0;
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

/* Gives the unnamed file a temporary name beside the destination. */
static int link_unnamed(struct output_file *of)
{
	char proc[64];

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", of->fd);
	for (int i = 0; i < 100; i++) {
		snprintf(of->tmp, sizeof(of->tmp), "%s.%d.%d", of->path, (int)getpid(), i);
		if (!linkat(AT_FDCWD, proc, AT_FDCWD, of->tmp, AT_SYMLINK_FOLLOW))
			return 0;
		if (errno != EEXIST)
			break;
	}
	of->tmp[0] = 0;
	return -errno;
}

int output_file__commit(struct output_file *of, char *err, size_t errlen)
{
	int e = 0;

	/* Complete on disk before it has its name, even across a crash. */
	if (fsync(of->fd))
		e = errno;
	if (!e && !of->tmp[0])
		e = -link_unnamed(of);
	if (close(of->fd) && !e)
		e = errno;
	of->fd = -1;
	if (!e && rename(of->tmp, of->path))
		e = errno;
	if (e) {
		if (of->tmp[0])
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
	if (of->tmp[0])
		unlink(of->tmp);
}

int output_file__write_stream(const char *path, int (*write)(FILE *f, void *ctx), void *ctx,
			      char *err, size_t errlen)
{
	struct output_file of;
	int fd, ret = output_file__create(&of, path, err, errlen);
	FILE *f;

	if (ret)
		return ret;
	fd = dup(of.fd);
	f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f && fd >= 0)
		close(fd);
	ret = f ? write(f, ctx) : -errno;
	if (f && fclose(f) && !ret)
		ret = -errno;
	if (!ret)
		ret = output_file__commit(&of, err, errlen);
	else
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(-ret));
	output_file__abort(&of);
	return ret;
}
