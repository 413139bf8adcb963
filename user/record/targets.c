// SPDX-License-Identifier: MIT
/* targets.c: see targets.h. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>

#include "target/proc_maps.h"
#include "record/targets.h"

static void comm_of(pid_t pid, char *buf, size_t len)
{
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	buf[0] = 0;
	f = fopen(path, "re");
	if (f) {
		if (!fgets(buf, (int)len, f))
			buf[0] = 0;
		fclose(f);
	}
	buf[strcspn(buf, "\n")] = 0;
}

static int check_one(pid_t pid, char *err, size_t errlen)
{
	enum proc_state st;
	char comm[64];

	if (pid <= 0 || proc_state(pid, &st)) {
		snprintf(err, errlen, "-p %d: no such process", (int)pid);
		return -ESRCH;
	}
	comm_of(pid, comm, sizeof(comm));
	if (st == PROC_KTHREAD) {
		snprintf(err, errlen,
			 "-p %d: process %d (%s) is a kernel thread: no user code to trace",
			 (int)pid, (int)pid, comm);
		return -EINVAL;
	}
	if (st == PROC_EXITED) {
		snprintf(err, errlen, "-p %d: process %d (%s) has exited", (int)pid, (int)pid,
			 comm);
		return -ESRCH;
	}
	if (pid == getpid()) {
		snprintf(err, errlen, "-p %d: that is sledtrace itself", (int)pid);
		return -EINVAL;
	}
	return 0;
}

int targets__open(struct targets *t, const pid_t *pids, size_t n, char *err, size_t errlen)
{
	*t = (struct targets){ 0 };
	t->pids = calloc(n, sizeof(*t->pids));
	t->pidfds = calloc(n, sizeof(*t->pidfds));
	if (!t->pids || !t->pidfds) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		int ret = check_one(pids[i], err, errlen);

		if (ret)
			return ret;
		/* Pinned before its maps are read: from here on a pid that
		 * exits is seen through its pidfd, never confused with a new
		 * process that reuses the number. */
		t->pidfds[i] = (int)syscall(SYS_pidfd_open, pids[i], 0);
		if (t->pidfds[i] < 0) {
			snprintf(err, errlen, "-p %d: no such process", (int)pids[i]);
			return -ESRCH;
		}
		t->pids[i] = pids[i];
		t->n++;
	}
	return 0;
}

struct discover_ctx {
	struct object_set *set;
	size_t found;
	char *err;
	size_t errlen;
};

static int add_mapping(const struct proc_mapping *m, void *arg)
{
	struct discover_ctx *d = arg;
	int ret = object_set__add(d->set, m->path, m->open_path, m->dev, m->ino, d->err, d->errlen);

	if (ret == 0 || ret == 1) {
		d->found++;
		return 0;
	}
	/* Most mapped files (libc, the loader) have no sleds; any file we
	 * cannot read as an ELF object is simply not a candidate. */
	return ret == -ENOMEM ? ret : 0;
}

static bool has_exited(int pidfd)
{
	struct pollfd p = { .fd = pidfd, .events = POLLIN };

	return poll(&p, 1, 0) == 1;
}

static int exited(const struct targets *t, size_t i, char *err, size_t errlen)
{
	snprintf(err, errlen, "-p %d: process %d exited while sledtrace was attaching",
		 (int)t->pids[i], (int)t->pids[i]);
	return -ESRCH;
}

int targets__discover(struct targets *t, struct object_set *s, bool follow, char *err,
		      size_t errlen)
{
	for (size_t i = 0; i < t->n; i++) {
		struct discover_ctx d = { .set = s, .err = err, .errlen = errlen };
		int ret = proc_maps__for_each_exec(t->pids[i], add_mapping, &d);
		char comm[64];

		if (ret == -ESRCH || (!d.found && has_exited(t->pidfds[i])))
			return exited(t, i, err, errlen);
		if (ret) {
			snprintf(err, errlen, "-p %d: %s", (int)t->pids[i], strerror(-ret));
			return ret;
		}
		/* Followed, its children may map objects with sleds later. */
		if (!d.found && !follow) {
			comm_of(t->pids[i], comm, sizeof(comm));
			snprintf(err, errlen,
				 "-p %d: process %d (%s) maps no object with sleds "
				 "(build it with clang -fxray-instrument)",
				 (int)t->pids[i], (int)t->pids[i], comm);
			return -ENODATA;
		}
	}
	return targets__check_alive(t, err, errlen);
}

int targets__check_alive(const struct targets *t, char *err, size_t errlen)
{
	for (size_t i = 0; i < t->n; i++)
		if (has_exited(t->pidfds[i]))
			return exited(t, i, err, errlen);
	return 0;
}

int targets__check_exiting(const struct targets *t, int wait_ms, char *err, size_t errlen)
{
	struct pollfd *p = calloc(t->n, sizeof(*p));

	if (!p)
		return -ENOMEM;
	for (size_t i = 0; i < t->n; i++)
		p[i] = (struct pollfd){ .fd = t->pidfds[i], .events = POLLIN };
	/* Any one that ends will do: the check below names it. */
	if (poll(p, t->n, wait_ms) < 0 && errno != EINTR) {
		free(p);
		return -errno;
	}
	free(p);
	return targets__check_alive(t, err, errlen);
}

size_t targets__alive(const struct targets *t)
{
	size_t n = 0;

	for (size_t i = 0; i < t->n; i++)
		n += !has_exited(t->pidfds[i]);
	return n;
}

void targets__close(struct targets *t)
{
	for (size_t i = 0; i < t->n; i++)
		close(t->pidfds[i]);
	free(t->pids);
	free(t->pidfds);
	*t = (struct targets){ 0 };
}
