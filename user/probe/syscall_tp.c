// SPDX-License-Identifier: MIT
/* syscall_tp.c: see syscall_tp.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>

#include <bpf/bpf.h>

#include "probe/syscall_tp.h"

static int tracepoint_id(const char *category, const char *name)
{
	static const char *const roots[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	char path[256], buf[32];
	int err = -ENOENT;

	for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]); i++) {
		ssize_t n;
		int fd;

		snprintf(path, sizeof(path), "%s/events/%s/%s/id", roots[i], category, name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			err = -errno;
			continue;
		}
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n <= 0)
			return -EIO;
		buf[n] = '\0';
		return atoi(buf) > 0 ? atoi(buf) : -EIO;
	}
	return err;
}

int syscall_tp__attach(int prog_fd, const char *category, const char *name)
{
	struct perf_event_attr attr = { .type = PERF_TYPE_TRACEPOINT,
					.size = sizeof(attr),
					.sample_period = 1,
					.wakeup_events = 1 };
	int id = tracepoint_id(category, name), pfd, link;

	if (id < 0)
		return id;
	attr.config = (__u64)id;
	/* Every process, counted on one CPU: a tracepoint program runs on
	 * whichever CPU hits it, whatever the event's CPU. */
	pfd = (int)syscall(SYS_perf_event_open, &attr, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
	if (pfd < 0)
		return -errno;
	link = bpf_link_create(prog_fd, pfd, BPF_PERF_EVENT, NULL);
	if (link < 0)
		link = -errno;
	close(pfd); /* the link holds the event */
	return link;
}
