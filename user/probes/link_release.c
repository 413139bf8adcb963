// SPDX-License-Identifier: MIT
/* link_release.c: see link_release.h. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "probes/link_release.h"

#define RELEASE_THREADS 16

struct closer {
	struct bpf_link **links;
	size_t n, first;
	pthread_t tid;
};

static void *close_every(void *arg)
{
	struct closer *c = arg;

	for (size_t i = c->first; i < c->n; i += RELEASE_THREADS)
		bpf_link__destroy(c->links[i]);
	return NULL;
}

void link_release__parallel(struct bpf_link **links, size_t n)
{
	struct closer c[RELEASE_THREADS];
	size_t started = 0;

	for (size_t t = 0; t < RELEASE_THREADS && t < n && n > 1; t++) {
		c[t] = (struct closer){ .links = links, .n = n, .first = t };
		if (pthread_create(&c[t].tid, NULL, close_every, &c[t]))
			break;
		started++;
	}
	/* Whatever no thread took (none started, or too few) closes here. */
	for (size_t t = started; t < RELEASE_THREADS && t < n; t++) {
		c[t] = (struct closer){ .links = links, .n = n, .first = t };
		close_every(&c[t]);
	}
	for (size_t t = 0; t < started; t++)
		pthread_join(c[t].tid, NULL);
}

/* Other link descriptors whose close waits (syscall tracepoints): -1 ends. */
struct extra_fds {
	const int *fd;
	size_t n;
};

static bool is_link_fd(struct bpf_link **links, size_t n, struct extra_fds x, int fd)
{
	for (size_t i = 0; i < x.n; i++)
		if (fd == x.fd[i])
			return true;
	for (size_t i = 0; i < n; i++)
		if (bpf_link__fd(links[i]) == fd)
			return true;
	return false;
}

/* The helper keeps nothing but the links open: a pipe held here would keep
 * a reader of sledtrace's output waiting for the helper. */
static void helper_close_others(struct bpf_link **links, size_t n, struct extra_fds x, int keep)
{
	int top = keep;

	for (size_t i = 0; i < x.n; i++)
		if (x.fd[i] > top)
			top = x.fd[i];
	for (size_t i = 0; i < n; i++)
		if (bpf_link__fd(links[i]) > top)
			top = bpf_link__fd(links[i]);
	for (int fd = 0; fd <= top; fd++)
		if (fd != keep && !is_link_fd(links, n, x, fd))
			close(fd);
	close_range((unsigned)top + 1, ~0u, 0);
}

static void helper_main(struct bpf_link **links, size_t n, struct extra_fds x, int wait_fd)
{
	char c;

	helper_close_others(links, n, x, wait_fd);
	/* EOF: the parent's references are gone, ours are the last. */
	while (read(wait_fd, &c, 1) < 0 && errno == EINTR)
		;
	link_release__parallel(links, n);
	_exit(0); /* the extra descriptors go with the process */
}

int link_release__background(struct bpf_link **links, size_t n, const int *extra, size_t nextra)
{
	struct extra_fds x = { extra, nextra };
	int pipefd[2];
	pid_t pid;

	if (pipe2(pipefd, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid < 0) {
		close(pipefd[0]);
		close(pipefd[1]);
		return -errno;
	}
	if (pid == 0) {
		close(pipefd[1]);
		helper_main(links, n, x, pipefd[0]);
	}
	close(pipefd[0]);
	for (size_t i = 0; i < n; i++) {
		int fd = bpf_link__fd(links[i]);

		/* Free libbpf's object without detaching; the fd goes below. */
		bpf_link__disconnect(links[i]);
		bpf_link__destroy(links[i]);
		close(fd);
	}
	for (size_t i = 0; i < nextra; i++)
		if (extra[i] >= 0)
			close(extra[i]);
	close(pipefd[1]);
	return 0;
}
