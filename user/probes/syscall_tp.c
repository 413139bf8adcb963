// SPDX-License-Identifier: MIT
/* syscall_tp.c: see syscall_tp.h. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <mntent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/mount.h>
#include <sys/syscall.h>

#include <bpf/bpf.h>

#include "probes/syscall_tp.h"

/* The number in the file REL under the tracefs root dir_fd. */
static int read_id(int dir_fd, const char *rel)
{
	char buf[32], *end;
	long id;
	ssize_t n;
	int fd = openat(dir_fd, rel, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -EIO;
	buf[n] = '\0';
	id = strtol(buf, &end, 10);
	return id > 0 && id <= INT_MAX && (*end == '\n' || !*end) ? (int)id : -EIO;
}

/* A tracefs this mount namespace already has, used as it is.  Never one
 * reached through debugfs: looking into its "tracing" directory would
 * mount tracefs there for good. */
static int id_from_mounted(const char *rel, char *how, size_t howlen)
{
	FILE *f = setmntent("/proc/self/mounts", "re");
	struct mntent *m;
	int id = -ENOENT;

	if (!f)
		return -errno;
	while (id < 0 && (m = getmntent(f))) {
		int dir;

		if (strcmp(m->mnt_type, "tracefs"))
			continue;
		dir = open(m->mnt_dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (dir < 0)
			continue;
		id = read_id(dir, rel);
		close(dir);
		if (id > 0)
			snprintf(how, howlen, "tracefs at %s", m->mnt_dir);
	}
	endmntent(f);
	return id;
}

/* A tracefs of our own that no directory of any namespace shows: the
 * mount lives as long as its descriptor.  Says why it failed in how. */
static int id_from_detached(const char *rel, const char *what, char *how, size_t howlen)
{
	int fs = fsopen("tracefs", FSOPEN_CLOEXEC), mnt = -1, err, id;

	if (fs >= 0 && !fsconfig(fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0))
		mnt = fsmount(fs, FSMOUNT_CLOEXEC,
			      MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV |
				      MOUNT_ATTR_NOEXEC);
	err = errno;
	if (fs >= 0)
		close(fs);
	if (mnt < 0 && err == ENODEV)
		snprintf(how, howlen, "no tracefs in this kernel");
	else if (mnt < 0)
		snprintf(how, howlen, "cannot mount tracefs: %s", strerror(err));
	if (mnt < 0)
		return -err;
	id = read_id(mnt, rel);
	close(mnt);
	if (id > 0)
		snprintf(how, howlen, "a detached tracefs mount");
	else if (id == -ENOENT)
		snprintf(how, howlen, "no tracepoint %s in this kernel", what);
	else
		snprintf(how, howlen, "cannot read the id of %s: %s", what, strerror(-id));
	return id;
}

int syscall_tp__attach(int prog_fd, const char *category, const char *name, char *how,
		       size_t howlen)
{
	struct perf_event_attr attr = { .type = PERF_TYPE_TRACEPOINT,
					.size = sizeof(attr),
					.sample_period = 1,
					.wakeup_events = 1 };
	char what[128], rel[160];
	int id, pfd, link, err;

	snprintf(what, sizeof(what), "%s/%s", category, name);
	snprintf(rel, sizeof(rel), "events/%s/id", what);
	id = id_from_mounted(rel, how, howlen);
	if (id < 0)
		id = id_from_detached(rel, what, how, howlen);
	if (id < 0)
		return id;
	attr.config = (__u64)id;
	/* Every process, counted on one CPU: a tracepoint program runs on
	 * whichever CPU hits it, whatever the event's CPU. */
	pfd = (int)syscall(SYS_perf_event_open, &attr, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
	if (pfd < 0) {
		err = errno;
		snprintf(how, howlen, "cannot open tracepoint %s: %s", what, strerror(err));
		return -err;
	}
	link = bpf_link_create(prog_fd, pfd, BPF_PERF_EVENT, NULL);
	if (link < 0) {
		err = errno;
		snprintf(how, howlen, "cannot attach to tracepoint %s: %s", what, strerror(err));
		link = -err;
	}
	close(pfd); /* the link holds the event */
	return link;
}
