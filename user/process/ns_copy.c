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
#include <sys/stat.h>

#include "process/ns_copy.h"
#include "process/scratch_copy.h"
#include "process/helper.h"

struct ns_copy {
	int tree_fd; /* the detached (later: bound) mount of the copy */
	char path[64];
};

struct make_task {
	int memfd;
	int tree_fd; /* out: the descriptor table is shared */
};

/* In the helper: a private namespace of its own, a tmpfs, the copy in it,
 * a detached mount of the copy.  Returns 0 or an errno. */
static int make_tree(void *arg)
{
	struct make_task *t = arg;
	const char *dir = NULL;
	int dir_fd, e;

	if (unshare(CLONE_NEWNS) || mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL))
		return errno;
	/* Only the helper sees this mount: its namespace is its own. */
	dir_fd = scratch__mount(&dir);
	if (dir_fd < 0)
		return -dir_fd;
	e = scratch__write(t->memfd, dir_fd);
	if (!e) {
		t->tree_fd = open_tree(dir_fd, "copy", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
		if (t->tree_fd < 0)
			e = errno;
	}
	close(dir_fd);
	return e;
}

int ns_copy__new(int memfd, struct ns_copy **out)
{
	struct make_task t = { .memfd = memfd, .tree_fd = -1 };
	struct ns_copy *c;
	int err;

	*out = NULL;
	err = helper__run(make_tree, &t, true);
	if (err > 0)
		err = -err;
	if (err) {
		if (t.tree_fd >= 0)
			close(t.tree_fd);
		return err;
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		close(t.tree_fd);
		return -ENOMEM;
	}
	c->tree_fd = t.tree_fd;
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

struct bind_task {
	int tree_fd, nsfd;
	const char *path;
	uint64_t dev, ino;
};

/* In the helper: the command's namespace, then the same file check as
 * sledtrace made when it found the object, then the move. */
static int bind_in(void *arg)
{
	const struct bind_task *t = arg;
	struct stat st;

	if (setns(t->nsfd, CLONE_NEWNS))
		return errno;
	if (stat(t->path, &st))
		return errno;
	if ((uint64_t)st.st_dev != t->dev || (uint64_t)st.st_ino != t->ino || !S_ISREG(st.st_mode))
		return ESTALE;
	if (move_mount(t->tree_fd, "", AT_FDCWD, t->path, MOVE_MOUNT_F_EMPTY_PATH))
		return errno;
	return 0;
}

int ns_copy__bind(struct ns_copy *c, int nsfd, const char *path, uint64_t dev, uint64_t ino)
{
	struct bind_task t = { c->tree_fd, nsfd, path, dev, ino };
	int err = helper__run(bind_in, &t, false);

	return err > 0 ? -err : err;
}
