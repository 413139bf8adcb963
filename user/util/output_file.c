// SPDX-License-Identifier: MIT
/* output_file.c: see output_file.h.  A regular file is made with O_TMPFILE
 * where the filesystem allows: it has no name until commit links it in, so
 * even a SIGKILL leaves nothing behind.  Elsewhere a named temporary file is
 * used.  Anything that is not a regular file is only ever opened for
 * writing: sledtrace runs as root, and renaming a file over /dev/full or a
 * FIFO would replace a node it was only asked to write into. */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>

#include "util/output_file.h"

static int failf(char *err, size_t errlen, int e, const char *fmt, const char *a, const char *b)
{
	snprintf(err, errlen, fmt, a, b);
	return -e;
}

static int open_unnamed(struct output_file *of, const char *dir)
{
	of->fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);
	of->tmp[0] = 0;
	return of->fd < 0 ? -errno : 0;
}

/* A new or existing regular file at of->dest, whose directory exists. */
static int create_atomic(struct output_file *of, char *err, size_t errlen)
{
	char dir[sizeof(of->dest)];
	int e;

	snprintf(dir, sizeof(dir), "%s", of->dest);
	of->kind = OUTPUT_ATOMIC;
	e = -open_unnamed(of, dirname(dir));
	if (!e)
		return 0;
	if (e != EOPNOTSUPP && e != EISDIR && e != EINVAL)
		return failf(err, errlen, e, "cannot create %s: %s", of->path, strerror(e));
	snprintf(of->tmp, sizeof(of->tmp), "%s.XXXXXX", of->dest);
	of->fd = mkostemp(of->tmp, O_CLOEXEC);
	if (of->fd < 0) {
		e = errno;
		of->tmp[0] = 0;
		return failf(err, errlen, e, "cannot create %s: %s", of->path, strerror(e));
	}
	/* mkostemp makes 0600; a trace is an ordinary file. */
	(void)fchmod(of->fd, 0644);
	return 0;
}

/* The directory a new file would go in must exist and be a directory. */
static int check_parent(const struct output_file *of, char *err, size_t errlen)
{
	char buf[sizeof(of->dest)];
	const char *dir;
	struct stat st;

	snprintf(buf, sizeof(buf), "%s", of->dest);
	dir = dirname(buf);
	if (stat(dir, &st)) {
		int e = errno;

		snprintf(err, errlen, "cannot create %s: directory %s%s%s", of->path, dir,
			 e == ENOENT ? " does not exist" : ": ", e == ENOENT ? "" : strerror(e));
		return -e;
	}
	if (!S_ISDIR(st.st_mode))
		return failf(err, errlen, ENOTDIR, "cannot create %s: %s is not a directory",
			     of->path, dir);
	return 0;
}

static int connect_socket(struct output_file *of, char *err, size_t errlen)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int e;

	if (strlen(of->dest) >= sizeof(sa.sun_path))
		return failf(err, errlen, ENAMETOOLONG, "cannot write %s: %s", of->path,
			     strerror(ENAMETOOLONG));
	memcpy(sa.sun_path, of->dest, strlen(of->dest) + 1);
	of->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (of->fd >= 0 && !connect(of->fd, (struct sockaddr *)&sa, sizeof(sa)))
		return 0;
	e = errno;
	if (of->fd >= 0)
		close(of->fd);
	of->fd = -1;
	return failf(err, errlen, e, "cannot write to socket %s: %s", of->path, strerror(e));
}

/* Null (1:3) and zero (1:5) keep nothing of what is written to them. */
static bool discards(const struct stat *st)
{
	return S_ISCHR(st->st_mode) && major(st->st_rdev) == 1 &&
	       (minor(st->st_rdev) == 3 || minor(st->st_rdev) == 5);
}

/* A device, FIFO or socket: write through it, never replace it. */
static int open_through(struct output_file *of, const struct stat *st, char *err, size_t errlen)
{
	int e;

	if (S_ISSOCK(st->st_mode)) {
		of->kind = OUTPUT_STREAM;
		return connect_socket(of, err, errlen);
	}
	if (S_ISBLK(st->st_mode))
		return failf(err, errlen, EINVAL,
			     "%s is a block device: sledtrace does not write onto disks%s",
			     of->path, "");
	if (!S_ISCHR(st->st_mode) && !S_ISFIFO(st->st_mode))
		return failf(err, errlen, EINVAL,
			     "cannot write %s: not a file, device, FIFO or socket%s", of->path, "");
	of->kind = discards(st) ? OUTPUT_DISCARD : OUTPUT_STREAM;
	/* A FIFO blocks here until it has a reader, as `cat > fifo` would. */
	of->fd = open(of->dest, O_WRONLY | O_CLOEXEC | O_NOCTTY);
	if (of->fd >= 0)
		return 0;
	e = errno;
	return failf(err, errlen, e, "cannot write %s: %s", of->path, strerror(e));
}

/* A symlink names its final target; a dangling one is refused rather than
 * followed into creating a file somewhere else. */
static int resolve_link(struct output_file *of, struct stat *st, char *err, size_t errlen)
{
	char real[PATH_MAX];

	if (stat(of->path, st) || !realpath(of->path, real))
		return failf(err, errlen, errno == ENOENT ? ENOENT : errno, "cannot write %s: %s",
			     of->path,
			     errno == ENOENT ? "it is a symlink to nothing" : strerror(errno));
	if (strlen(real) >= sizeof(of->dest))
		return failf(err, errlen, ENAMETOOLONG, "cannot write %s: %s", of->path,
			     strerror(ENAMETOOLONG));
	memcpy(of->dest, real, strlen(real) + 1);
	return 0;
}

static int classify(struct output_file *of, char *err, size_t errlen)
{
	struct stat st;
	int ret;

	if (lstat(of->path, &st)) {
		if (errno != ENOENT)
			return failf(err, errlen, errno, "cannot write %s: %s", of->path,
				     strerror(errno));
		ret = check_parent(of, err, errlen);
		return ret ? ret : create_atomic(of, err, errlen);
	}
	if (S_ISLNK(st.st_mode) && (ret = resolve_link(of, &st, err, errlen)))
		return ret;
	if (S_ISDIR(st.st_mode))
		return failf(err, errlen, EISDIR, "cannot write %s: it is a directory%s", of->path,
			     "");
	if (S_ISREG(st.st_mode))
		return create_atomic(of, err, errlen);
	return open_through(of, &st, err, errlen);
}

int output_file__create(struct output_file *of, const char *path, char *err, size_t errlen)
{
	of->fd = -1;
	of->tmp[0] = 0;
	if (!strcmp(path, "-")) {
		snprintf(of->path, sizeof(of->path), "standard output");
		of->kind = OUTPUT_STDOUT;
		of->fd = STDOUT_FILENO;
		return 0;
	}
	if (!*path)
		return failf(err, errlen, EINVAL, "an empty output file name%s%s", "", "");
	if (strlen(path) >= sizeof(of->path))
		return failf(err, errlen, ENAMETOOLONG, "%s: file name too long%s", path, "");
	memcpy(of->path, path, strlen(path) + 1);
	memcpy(of->dest, path, strlen(path) + 1);
	return classify(of, err, errlen);
}

/* Gives the unnamed file a temporary name beside the destination. */
static int link_unnamed(struct output_file *of)
{
	char proc[64];

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", of->fd);
	for (int i = 0; i < 100; i++) {
		snprintf(of->tmp, sizeof(of->tmp), "%s.%d.%d", of->dest, (int)getpid(), i);
		if (!linkat(AT_FDCWD, proc, AT_FDCWD, of->tmp, AT_SYMLINK_FOLLOW))
			return 0;
		if (errno != EEXIST)
			break;
	}
	of->tmp[0] = 0;
	return -errno;
}

static int commit_atomic(struct output_file *of)
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
	if (!e && rename(of->tmp, of->dest))
		e = errno;
	if (e && of->tmp[0])
		unlink(of->tmp);
	return e;
}

int output_file__commit(struct output_file *of, char *err, size_t errlen)
{
	int e = 0;

	if (of->kind == OUTPUT_ATOMIC)
		e = commit_atomic(of);
	else if (of->kind != OUTPUT_STDOUT && close(of->fd))
		e = errno;
	of->fd = -1;
	if (e)
		return failf(err, errlen, e, "cannot write %s: %s", of->path, strerror(e));
	return 0;
}

void output_file__abort(struct output_file *of)
{
	if (of->fd < 0)
		return;
	if (of->kind != OUTPUT_STDOUT)
		close(of->fd);
	of->fd = -1;
	if (of->tmp[0])
		unlink(of->tmp);
}

int output_file__write_opened(struct output_file *of, int (*write)(FILE *f, void *ctx), void *ctx,
			      char *err, size_t errlen)
{
	int fd = dup(of->fd), ret;
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;

	if (!f && fd >= 0)
		close(fd);
	ret = f ? write(f, ctx) : -errno;
	if (f && fclose(f) && !ret)
		ret = -errno;
	if (!ret)
		ret = output_file__commit(of, err, errlen);
	else
		snprintf(err, errlen, "cannot write %s: %s", of->path, strerror(-ret));
	output_file__abort(of);
	return ret;
}

int output_file__write_stream(const char *path, int (*write)(FILE *f, void *ctx), void *ctx,
			      char *err, size_t errlen)
{
	struct output_file of;
	int ret = output_file__create(&of, path, err, errlen);

	return ret ? ret : output_file__write_opened(&of, write, ctx, err, errlen);
}
