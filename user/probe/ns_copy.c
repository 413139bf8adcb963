// SPDX-License-Identifier: MIT
/* ns_copy.c: see ns_copy.h. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "probe/ns_copy.h"

struct ns_copy {
	int tree_fd; /* the detached (later: bound) mount of the copy */
	char path[64];
};

/* Only the helper sees this mount: its namespace is its own. */
static const char *const scratch_dirs[] = { "/tmp", "/mnt", "/run", "/" };

static int copy_into(int memfd, int dir_fd)
{
	struct stat st;
	off_t off = 0;
	int fd, e = 0;

	if (fstat(memfd, &st))
		return errno;
	fd = openat(dir_fd, "copy", O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0700);
	if (fd < 0)
		return errno;
	while (!e && off < st.st_size) {
		ssize_t n = sendfile(fd, memfd, &off, (size_t)(st.st_size - off));

		if (n <= 0)
			e = n < 0 ? errno : EIO;
	}
	if (!e && (fchown(fd, st.st_uid, st.st_gid) || fchmod(fd, st.st_mode & 07777)))
		e = errno;
	close(fd);
	return e;
}

/* In the helper: returns the detached mount's fd, or -errno. */
static int make_tree(int memfd)
{
	int dir_fd = -1, e = ENOENT, tree;

	if (unshare(CLONE_NEWNS) || mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL))
		return -errno;
	for (size_t i = 0; dir_fd < 0 && i < sizeof(scratch_dirs) / sizeof(scratch_dirs[0]); i++) {
		if (mount("sledtrace", scratch_dirs[i], "tmpfs", 0, "mode=0700")) {
			e = errno;
			continue;
		}
		dir_fd = open(scratch_dirs[i], O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (dir_fd < 0)
			e = errno;
	}
	if (dir_fd < 0)
		return -e;
	e = copy_into(memfd, dir_fd);
	if (e)
		return -e;
	tree = open_tree(dir_fd, "copy", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
	return tree < 0 ? -errno : tree;
}

/* One datagram: the error (0 or errno) and, on success, the fd. */
static void send_result(int sock, int err, int fd)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = { 0 };
	struct iovec iov = { &err, sizeof(err) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };

	if (fd >= 0) {
		struct cmsghdr *c;

		msg.msg_control = cbuf;
		msg.msg_controllen = sizeof(cbuf);
		c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	if (sendmsg(sock, &msg, MSG_NOSIGNAL) < 0)
		_exit(127);
}

static int recv_result(int sock, int *fd)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	int err = EPROTO;
	struct iovec iov = { &err, sizeof(err) };
	struct msghdr msg = { .msg_iov = &iov,
			      .msg_iovlen = 1,
			      .msg_control = cbuf,
			      .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *c;
	ssize_t n;

	*fd = -1;
	do
		n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t)sizeof(err))
		return -ECHILD;
	c = CMSG_FIRSTHDR(&msg);
	if (c && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
		memcpy(fd, CMSG_DATA(c), sizeof(int));
	if (!err && *fd < 0)
		return -EPROTO;
	if (err && *fd >= 0) {
		close(*fd);
		*fd = -1;
	}
	return -err;
}

static void reap(pid_t pid)
{
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
}

int ns_copy__new(int memfd, struct ns_copy **out)
{
	struct ns_copy *c = calloc(1, sizeof(*c));
	int sv[2], err;
	pid_t pid;

	*out = NULL;
	if (!c)
		return -ENOMEM;
	if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv)) {
		free(c);
		return -errno;
	}
	pid = fork();
	if (pid == 0) {
		int tree = make_tree(memfd);

		send_result(sv[1], tree < 0 ? -tree : 0, tree);
		_exit(0);
	}
	close(sv[1]);
	err = pid < 0 ? -errno : recv_result(sv[0], &c->tree_fd);
	close(sv[0]);
	if (pid > 0)
		reap(pid);
	if (err) {
		free(c);
		return err;
	}
	snprintf(c->path, sizeof(c->path), "/proc/self/fd/%d", c->tree_fd);
	*out = c;
	return 0;
}

void ns_copy__free(struct ns_copy *c)
{
	if (!c)
		return;
	close(c->tree_fd);
	free(c);
}

const char *ns_copy__path(const struct ns_copy *c)
{
	return c->path;
}

int ns_copy__stat(const struct ns_copy *c, uint64_t *dev, uint64_t *ino)
{
	struct stat st;

	if (fstat(c->tree_fd, &st))
		return -errno;
	*dev = st.st_dev;
	*ino = st.st_ino;
	return 0;
}

/* In the helper: the command's namespace, then the same file check as
 * sledtrace made when it found the object, then the move. */
static int bind_in(int tree_fd, int nsfd, const char *path, uint64_t dev, uint64_t ino)
{
	struct stat st;

	if (setns(nsfd, CLONE_NEWNS))
		return errno;
	if (stat(path, &st))
		return errno;
	if ((uint64_t)st.st_dev != dev || (uint64_t)st.st_ino != ino || !S_ISREG(st.st_mode))
		return ESTALE;
	if (move_mount(tree_fd, "", AT_FDCWD, path, MOVE_MOUNT_F_EMPTY_PATH))
		return errno;
	return 0;
}

int ns_copy__bind(struct ns_copy *c, int nsfd, const char *path, uint64_t dev, uint64_t ino)
{
	int p[2], e = ECHILD;
	pid_t pid;
	ssize_t n;

	if (pipe2(p, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid == 0) {
		e = bind_in(c->tree_fd, nsfd, path, dev, ino);
		if (write(p[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(0);
	}
	close(p[1]);
	if (pid < 0) {
		e = errno;
		close(p[0]);
		return -e;
	}
	do
		n = read(p[0], &e, sizeof(e));
	while (n < 0 && errno == EINTR);
	close(p[0]);
	reap(pid);
	return n == (ssize_t)sizeof(e) ? -e : -ECHILD;
}
