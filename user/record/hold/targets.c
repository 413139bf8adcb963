// SPDX-License-Identifier: MIT
/* targets.c: see targets.h. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>

#include "process/proc_maps.h"
#include "record/hold/targets.h"

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
	t->cpu_ns = calloc(n, sizeof(*t->cpu_ns));
	if (!t->pids || !t->pidfds || !t->cpu_ns) {
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

/* utime + stime of /proc/PID/stat (fields 14 and 15, after the command
 * name in parentheses, which may itself hold blanks and parentheses). */
static bool stat_cpu_ns(pid_t pid, uint64_t *ns)
{
	char path[64], buf[1024], *p;
	unsigned long long ut, st;
	long hz = sysconf(_SC_CLK_TCK);
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0 || hz <= 0)
		return false;
	buf[n] = 0;
	p = strrchr(buf, ')');
	if (!p ||
	    sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) != 2)
		return false;
	*ns = (ut + st) * (1000000000ull / (unsigned long long)hz);
	return true;
}

uint64_t targets__cpu_ns(struct targets *t)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < t->n; i++) {
		struct pollfd pfd = { .fd = t->pidfds[i], .events = POLLIN };
		uint64_t ns;

		/* an exited target's pid may name another process by now */
		if (poll(&pfd, 1, 0) == 0 && stat_cpu_ns(t->pids[i], &ns))
			t->cpu_ns[i] = ns;
		sum += t->cpu_ns[i];
	}
	return sum;
}

void targets__close(struct targets *t)
{
	for (size_t i = 0; i < t->n; i++)
		close(t->pidfds[i]);
	free(t->pids);
	free(t->pidfds);
	free(t->cpu_ns);
	*t = (struct targets){ 0 };
}
