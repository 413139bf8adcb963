// SPDX-License-Identifier: MIT
/* attach.c: see attach.h.  A group is every probe of one program in one
 * file with one direction (entry or return); a multi link takes a whole
 * group, the perf fallback takes it address by address. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "probe/attach.h"

#define BPF_TRACE_UPROBE_MULTI_NR 48 /* enum bpf_attach_type, kernel >= 6.6 */
#define BPF_F_UPROBE_MULTI_RETURN_NR 1u

/* BPF_LINK_CREATE's uprobe_multi layout (union bpf_attr, kernel >= 6.6).
 * The installed uapi header predates it; the kernel zero-fills the tail of
 * a shorter attr, so this prefix is all it needs. */
struct uprobe_multi_attr {
	uint32_t prog_fd;
	uint32_t target_fd;
	uint32_t attach_type;
	uint32_t flags;
	uint64_t path;
	uint64_t offsets;
	uint64_t ref_ctr_offsets;
	uint64_t cookies;
	uint32_t cnt;
	uint32_t uprobe_flags;
	uint32_t pid;
	uint32_t pad;
};

struct probe_group {
	struct bpf_program *prog;
	char *path;
	int retprobe;
	uint64_t *offsets;
	uint64_t *cookies;
	size_t cnt, cap;
};

/* A multi link is a bare fd; a perf link is libbpf's. */
struct attached {
	int fd;
	struct bpf_link *link;
};

struct attacher {
	struct attach_opts opts;
	enum attach_mode mode;
	struct probe_group *groups;
	size_t ngroups;
	struct attached *links;
	size_t nlinks, links_cap;
	size_t nprobes;
};

static bool kernel_has_uprobe_multi(void)
{
	struct btf *btf = btf__load_vmlinux_btf();
	bool found = false;
	int id;

	if (!btf)
		return false;
	id = btf__find_by_name_kind(btf, "bpf_attach_type", BTF_KIND_ENUM);
	if (id > 0) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		const struct btf_enum *v = btf_enum(t);

		for (int i = 0; i < btf_vlen(t); i++, v++)
			if (!strcmp(btf__name_by_offset(btf, v->name_off),
				    "BPF_TRACE_UPROBE_MULTI"))
				found = true;
	}
	btf__free(btf);
	return found;
}

int attacher__new(const struct attach_opts *opts, struct attacher **out)
{
	struct attacher *a = calloc(1, sizeof(*a));

	if (!a)
		return -ENOMEM;
	a->opts = *opts;
	a->mode = opts->mode;
	if (a->mode == ATTACH_AUTO)
		a->mode = kernel_has_uprobe_multi() ? ATTACH_MULTI : ATTACH_PERF;
	*out = a;
	return 0;
}

enum attach_mode attacher__mode(const struct attacher *a)
{
	return a->mode;
}

void attacher__set_pid(struct attacher *a, pid_t pid)
{
	a->opts.pid = pid;
}

int attacher__prepare(struct attacher *a, struct bpf_program *prog)
{
	if (a->mode != ATTACH_MULTI)
		return 0;
	return bpf_program__set_expected_attach_type(prog, BPF_TRACE_UPROBE_MULTI_NR);
}

static struct probe_group *group_for(struct attacher *a, struct bpf_program *prog, const char *path,
				     int retprobe)
{
	struct probe_group *g;

	for (size_t i = a->ngroups; i-- > 0;) {
		g = &a->groups[i];
		if (g->prog == prog && g->retprobe == retprobe && !strcmp(g->path, path))
			return g;
	}
	g = realloc(a->groups, (a->ngroups + 1) * sizeof(*g));
	if (!g)
		return NULL;
	a->groups = g;
	g = &a->groups[a->ngroups];
	memset(g, 0, sizeof(*g));
	g->path = strdup(path);
	if (!g->path)
		return NULL;
	g->prog = prog;
	g->retprobe = retprobe;
	a->ngroups++;
	return g;
}

int attacher__add(struct attacher *a, struct bpf_program *prog, const char *path, uint64_t offset,
		  uint64_t cookie, int retprobe)
{
	struct probe_group *g = group_for(a, prog, path, !!retprobe);

	if (!g)
		return -ENOMEM;
	if (g->cnt == g->cap) {
		size_t cap = g->cap ? g->cap * 2 : 256;
		uint64_t *o = realloc(g->offsets, cap * sizeof(*o));

		if (!o)
			return -ENOMEM;
		g->offsets = o;
		o = realloc(g->cookies, cap * sizeof(*o));
		if (!o)
			return -ENOMEM;
		g->cookies = o;
		g->cap = cap;
	}
	g->offsets[g->cnt] = offset;
	g->cookies[g->cnt] = cookie;
	g->cnt++;
	a->nprobes++;
	return 0;
}

static int push_link(struct attacher *a, int fd, struct bpf_link *link)
{
	if (a->nlinks == a->links_cap) {
		size_t cap = a->links_cap ? a->links_cap * 2 : 16;
		struct attached *l = realloc(a->links, cap * sizeof(*l));

		if (!l)
			return -ENOMEM;
		a->links = l;
		a->links_cap = cap;
	}
	a->links[a->nlinks++] = (struct attached){ .fd = fd, .link = link };
	return 0;
}

/* The kernel takes at most this many addresses in one link
 * (MAX_UPROBE_MULTI_CNT). */
#define MULTI_LINK_MAX (1u << 20)

static int attach_multi_range(struct attacher *a, struct probe_group *g, size_t first, size_t cnt)
{
	struct uprobe_multi_attr attr;
	int fd, err;

	memset(&attr, 0, sizeof(attr));
	attr.prog_fd = bpf_program__fd(g->prog);
	attr.attach_type = BPF_TRACE_UPROBE_MULTI_NR;
	attr.path = (uint64_t)(uintptr_t)g->path;
	attr.offsets = (uint64_t)(uintptr_t)(g->offsets + first);
	attr.cookies = (uint64_t)(uintptr_t)(g->cookies + first);
	attr.cnt = (uint32_t)cnt;
	attr.uprobe_flags = g->retprobe ? BPF_F_UPROBE_MULTI_RETURN_NR : 0;
	attr.pid = a->opts.pid > 0 ? (uint32_t)a->opts.pid : 0;
	fd = (int)syscall(__NR_bpf, BPF_LINK_CREATE, &attr, sizeof(attr));
	if (fd < 0)
		return -errno;
	err = push_link(a, fd, NULL);
	if (err)
		close(fd);
	return err;
}

static int attach_multi(struct attacher *a, struct probe_group *g)
{
	for (size_t first = 0; first < g->cnt; first += MULTI_LINK_MAX) {
		size_t left = g->cnt - first;
		int err = attach_multi_range(a, g, first,
					     left < MULTI_LINK_MAX ? left : MULTI_LINK_MAX);

		if (err)
			return err;
	}
	return 0;
}

static int attach_perf(struct attacher *a, struct probe_group *g)
{
	for (size_t i = 0; i < g->cnt; i++) {
		LIBBPF_OPTS(bpf_uprobe_opts, uo, .bpf_cookie = g->cookies[i],
			    .retprobe = g->retprobe);
		struct bpf_link *link;
		int err;

		link = bpf_program__attach_uprobe_opts(g->prog, a->opts.pid > 0 ? a->opts.pid : -1,
						       g->path, g->offsets[i], &uo);
		if (!link)
			return -errno;
		err = push_link(a, -1, link);
		if (err) {
			bpf_link__destroy(link);
			return err;
		}
	}
	return 0;
}

static void describe_failure(const struct attacher *a, const struct probe_group *g, int err,
			     char *buf, size_t len)
{
	const char *hint = "";

	if (err == -EMFILE || err == -ENFILE)
		hint = " (two file descriptors per probe: use --attach=multi or a narrower filter)";
	else if (err == -EPROTO || err == -524)
		hint = " (the kernel cannot probe an instruction there)";
	else if (err == -EPERM || err == -EACCES)
		hint = " (tracing needs root or CAP_BPF+CAP_PERFMON)";
	snprintf(buf, len, "cannot attach %zu %s%s to %s with %s: %s%s", g->cnt,
		 g->retprobe ? "uretprobe" : "uprobe", g->cnt == 1 ? "" : "s", g->path,
		 a->mode == ATTACH_MULTI ? "uprobe_multi" : "perf-event uprobes",
		 err == -524 ? "operation not supported" : strerror(-err), hint);
}

int attacher__attach(struct attacher *a, char *err, size_t errlen)
{
	for (size_t i = 0; i < a->ngroups; i++) {
		struct probe_group *g = &a->groups[i];
		int ret = a->mode == ATTACH_MULTI ? attach_multi(a, g) : attach_perf(a, g);

		if (ret) {
			describe_failure(a, g, ret, err, errlen);
			return ret;
		}
	}
	return 0;
}

size_t attacher__probe_count(const struct attacher *a)
{
	return a->nprobes;
}

size_t attacher__link_count(const struct attacher *a)
{
	return a->nlinks;
}

/* Each perf-event uprobe waits for an RCU grace period when it goes away
 * (~0.1 s here) and the kernel serialises those teardowns: closing from 64
 * threads saved only ~15%, so links are simply closed in order. */
static void detach_all(struct attacher *a)
{
	for (size_t i = 0; i < a->nlinks; i++) {
		if (a->links[i].link)
			bpf_link__destroy(a->links[i].link);
		else if (a->links[i].fd >= 0)
			close(a->links[i].fd);
	}
}

void attacher__free(struct attacher *a)
{
	if (!a)
		return;
	detach_all(a);
	for (size_t i = 0; i < a->ngroups; i++) {
		free(a->groups[i].path);
		free(a->groups[i].offsets);
		free(a->groups[i].cookies);
	}
	free(a->groups);
	free(a->links);
	free(a);
}
