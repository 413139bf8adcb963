// SPDX-License-Identifier: MIT
/* scratch_copy.c: see scratch_copy.h. */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/sendfile.h>
#include <sys/stat.h>

#include "process/scratch_copy.h"

/* Directories every system has; the mount covers one only for as long as
 * the copy is written and bound. */
static const char *const scratch_dirs[] = { "/tmp", "/mnt", "/run", "/media" };

int scratch__mount(const char **dir)
{
	int e = ENOENT;

	for (size_t i = 0; i < sizeof(scratch_dirs) / sizeof(scratch_dirs[0]); i++) {
		struct stat under, st;
		int fd;

		if (stat(scratch_dirs[i], &under) || !S_ISDIR(under.st_mode))
			continue;
		if (mount("sledtrace", scratch_dirs[i], "tmpfs", 0, "mode=0700")) {
			e = errno;
			continue;
		}
		fd = open(scratch_dirs[i], O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (fd >= 0 && !fstat(fd, &st) && st.st_dev != under.st_dev) {
			*dir = scratch_dirs[i];
			return fd;
		}
		e = EXDEV;
		if (fd >= 0)
			close(fd);
		umount2(scratch_dirs[i], MNT_DETACH);
	}
	return -e;
}

int scratch__write(int src_fd, int dir_fd)
{
	struct stat st;
	off_t off = 0;
	int fd, e = 0;

	if (fstat(src_fd, &st))
		return errno;
	fd = openat(dir_fd, "copy", O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0700);
	if (fd < 0)
		return errno;
	while (!e && off < st.st_size) {
		ssize_t n = sendfile(fd, src_fd, &off, (size_t)(st.st_size - off));

		if (n <= 0)
			e = n < 0 ? errno : EIO;
	}
	if (!e && (fchown(fd, st.st_uid, st.st_gid) || fchmod(fd, st.st_mode & 07777)))
		e = errno;
	close(fd);
	return e;
}
