// SPDX-License-Identifier: MIT
/* sled_rewrite.c: see sled_rewrite.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <linux/magic.h>

#include "arch/arch.h"
#include "process/launch.h"
#include "process/sled_rewrite.h"
#include "util/fd_io.h"

#ifndef MFD_EXEC
#define MFD_EXEC 0x0010U
#endif

struct sled_rewrite {
	int fd;
	char path[64];
};

static int read_all(int fd, uint8_t *buf, size_t size)
{
	size_t done = 0;

	while (done < size) {
		ssize_t n = pread(fd, buf + done, size - done, (off_t)done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		done += (size_t)n;
	}
	return 0;
}

/* MFD_EXEC keeps the copy executable whatever vm.memfd_noexec says;
 * kernels before 6.3 do not know the flag and make memfds executable. */
static int new_memfd(void)
{
	int fd = memfd_create("sledtrace-rewrite", MFD_CLOEXEC | MFD_ALLOW_SEALING | MFD_EXEC);

	if (fd < 0 && errno == EINVAL)
		fd = memfd_create("sledtrace-rewrite", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	return fd < 0 ? -errno : fd;
}

/* The copy gets the original's owner and mode, then is sealed: neither the
 * traced process nor anyone else can change what the probes point at. */
static int fill_memfd(int fd, const uint8_t *image, const struct stat *st)
{
	int err = fd_io__write_all(fd, image, (size_t)st->st_size);

	if (!err && fchown(fd, st->st_uid, st->st_gid))
		err = -errno;
	if (!err && fchmod(fd, st->st_mode & 07777))
		err = -errno;
	if (!err &&
	    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL))
		err = -errno;
	return err;
}

static int load_image(const char *path, uint8_t **image, struct stat *st)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), err = 0;

	*image = NULL;
	if (fd < 0)
		return -errno;
	if (fstat(fd, st))
		err = -errno;
	else if (!S_ISREG(st->st_mode) || st->st_size <= 0)
		err = -EINVAL;
	else if (!(*image = malloc((size_t)st->st_size)))
		err = -ENOMEM;
	else
		err = read_all(fd, *image, (size_t)st->st_size);
	close(fd);
	return err;
}

static int build(const struct elf_object *obj, const struct xray_map *map, struct sled_rewrite *rw,
		 char *why, size_t whylen)
{
	uint8_t *image;
	struct stat st;
	int err = load_image(elf_object__path(obj), &image, &st);

	if (err) {
		snprintf(why, whylen, "cannot read it: %s", strerror(-err));
	} else if (!(err = arch_patch_sleds(map, image, (size_t)st.st_size, why, whylen))) {
		rw->fd = new_memfd();
		err = rw->fd < 0 ? rw->fd : fill_memfd(rw->fd, image, &st);
		if (err)
			snprintf(why, whylen, "cannot make the copy: %s", strerror(-err));
	}
	free(image);
	return err;
}

int sled_rewrite__new(const struct elf_object *obj, const struct xray_map *map,
		      struct sled_rewrite **out, char *why, size_t whylen)
{
	struct sled_rewrite *rw;
	int err;

	*out = NULL;
	rw = calloc(1, sizeof(*rw));
	if (!rw) {
		snprintf(why, whylen, "%s", strerror(ENOMEM));
		return -ENOMEM;
	}
	rw->fd = -1;
	err = build(obj, map, rw, why, whylen);
	if (err) {
		sled_rewrite__free(rw);
		return err;
	}
	snprintf(rw->path, sizeof(rw->path), "/proc/self/fd/%d", rw->fd);
	*out = rw;
	return 0;
}

void sled_rewrite__free(struct sled_rewrite *rw)
{
	if (!rw)
		return;
	if (rw->fd >= 0)
		close(rw->fd);
	free(rw);
}

int sled_rewrite__fd(const struct sled_rewrite *rw)
{
	return rw->fd;
}

bool sled_rewrite__kernel_optimizes(void)
{
	return syscall(ARCH_NR_UPROBE) < 0 && errno == ENXIO;
}

const char *sled_rewrite__path(const struct sled_rewrite *rw)
{
	return rw->path;
}

/* The bound copy must be a tmpfs file of the memfd's size: anything else
 * means the path did not resolve to what the child mounted. */
static int same_copy(int fd, int memfd)
{
	struct statfs sf;
	struct stat a, b;

	if (fstatfs(fd, &sf) || fstat(fd, &a) || fstat(memfd, &b))
		return -errno;
	return sf.f_type == TMPFS_MAGIC && S_ISREG(a.st_mode) && a.st_size == b.st_size ? 0
											: -ESTALE;
}

int sled_rewrite__adopt(struct sled_rewrite *rw, pid_t pid, const char *path)
{
	char where[4200];
	int fd, err;

	snprintf(where, sizeof(where), "/proc/%d/%s/%s", (int)pid, path[0] == '/' ? "root" : "cwd",
		 path);
	fd = open(where, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	err = same_copy(fd, rw->fd);
	if (err) {
		close(fd);
		return err;
	}
	close(rw->fd);
	rw->fd = fd;
	snprintf(rw->path, sizeof(rw->path), "/proc/self/fd/%d", rw->fd);
	return 0;
}

static void drop(struct sled_rewrite **rw)
{
	sled_rewrite__free(*rw);
	*rw = NULL;
}

int sled_rewrite__spawn(struct sled_rewrite **rw, struct launch *l, const char *path,
			char *const argv[], char *why, size_t whylen)
{
	int err = launch__spawn_over(l, path, argv, (*rw)->fd);

	if (err)
		return err;
	if (l->bind_err) {
		snprintf(why, whylen, "cannot mount the copy in a private namespace: %s",
			 strerror(-l->bind_err));
		drop(rw);
		return 0;
	}
	err = sled_rewrite__adopt(*rw, l->pid, path);
	if (!err)
		return 0;
	/* That child runs a copy we cannot probe: start over without. */
	snprintf(why, whylen, "cannot open the mounted copy: %s", strerror(-err));
	drop(rw);
	launch__abort(l);
	return launch__spawn(l, path, argv);
}
