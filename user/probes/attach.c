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

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "probes/attach.h"
#include "probes/link_release.h"

struct probe_group {
	struct bpf_program *prog;
	char *path;
	int retprobe;
	unsigned long *offsets; /* libbpf's type for file offsets */
	__u64 *cookies;		/* libbpf's type for cookies */
	size_t cnt, cap;
};

struct attacher {
	struct attach_opts opts;
	enum attach_mode mode;
	struct probe_group *groups;
	size_t ngroups;
	size_t nattached; /* groups [0, nattached) are attached */
	struct bpf_link **links;
	size_t nlinks, links_cap;
	size_t nprobes;
	int sleepable; /* kernel_can_sleep's answer, -1 until asked */
};

/* Asks the kernel, not its BTF (parsing vmlinux BTF costs tens of ms):
 * a uprobe_multi link on a directory fails with EBADF where uprobe_multi
 * exists (the path is checked after the attach type), with EINVAL where
 * the attach type is unknown.  No probe is ever placed. */
static bool kernel_has_uprobe_multi(void)
{
	const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	enum bpf_prog_type type;
	enum bpf_attach_type multi;
	unsigned long offset = 0;
	LIBBPF_OPTS(bpf_prog_load_opts, po);
	LIBBPF_OPTS(bpf_link_create_opts, lo, .uprobe_multi.path = "/",
		    .uprobe_multi.offsets = &offset, .uprobe_multi.cnt = 1);
	int prog, link, err;

	if (libbpf_prog_type_by_name("uprobe.multi", &type, &multi))
		return false;
	po.expected_attach_type = multi;
	prog = bpf_prog_load(BPF_PROG_TYPE_KPROBE, NULL, "GPL", insns, 2, &po);
	if (prog < 0)
		return false;
	link = bpf_link_create(prog, 0, multi, &lo);
	err = link < 0 ? -errno : 0;
	if (link >= 0)
		close(link);
	close(prog);
	return err == -EBADF;
}

int attacher__new(const struct attach_opts *opts, struct attacher **out)
{
	struct attacher *a = calloc(1, sizeof(*a));

	if (!a)
		return -ENOMEM;
	a->opts = *opts;
	a->mode = opts->mode;
	a->sleepable = -1;
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

/* The programs are SEC("uprobe") so that the perf fallback can load them
 * as they are; a multi link needs them loaded with the attach type libbpf
 * gives SEC("uprobe.multi"), which we ask libbpf for rather than spell out
 * (the uapi header of Debian 12 predates it). */
int attacher__prepare(struct attacher *a, struct bpf_program *prog)
{
	enum bpf_prog_type type;
	enum bpf_attach_type multi;
	int err;

	if (a->mode != ATTACH_MULTI)
		return 0;
	err = libbpf_prog_type_by_name("uprobe.multi", &type, &multi);
	if (err)
		return err;
	return bpf_program__set_expected_attach_type(prog, multi);
}

/* Whether the kernel loads a sleepable uprobe program of the mode's
 * attach type that calls bpf_copy_from_user (Linux >= 6.0, multi links
 * >= 6.6): one tiny load, no probe placed.  SLEDTRACE_NO_SLEEPABLE=1
 * answers as a kernel without them would (tests, comparisons). */
static bool kernel_can_sleep(enum attach_mode mode)
{
	const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_X,
		  .dst_reg = BPF_REG_1,
		  .src_reg = BPF_REG_10 },
		{ .code = BPF_ALU64 | BPF_ADD | BPF_K, .dst_reg = BPF_REG_1, .imm = -8 },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_2, .imm = 1 },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_3, .imm = 0 },
		{ .code = BPF_JMP | BPF_CALL, .imm = BPF_FUNC_copy_from_user },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	const char *off = getenv("SLEDTRACE_NO_SLEEPABLE");
	enum bpf_prog_type type;
	enum bpf_attach_type multi;
	LIBBPF_OPTS(bpf_prog_load_opts, po, .prog_flags = BPF_F_SLEEPABLE);
	int prog;

	if (off && strcmp(off, "0"))
		return false;
	if (mode == ATTACH_MULTI) {
		if (libbpf_prog_type_by_name("uprobe.multi", &type, &multi))
			return false;
		po.expected_attach_type = multi;
	}
	prog = bpf_prog_load(BPF_PROG_TYPE_KPROBE, NULL, "GPL", insns,
			     sizeof(insns) / sizeof(insns[0]), &po);
	if (prog < 0)
		return false;
	close(prog);
	return true;
}

int attacher__prepare_sleepable(struct attacher *a, struct bpf_program *prog)
{
	int err = attacher__prepare(a, prog);

	if (err)
		return err;
	if (a->sleepable < 0)
		a->sleepable = kernel_can_sleep(a->mode);
	if (!a->sleepable)
		return 0;
	err = bpf_program__set_flags(prog, bpf_program__flags(prog) | BPF_F_SLEEPABLE);
	return err ? err : 1;
}

static struct probe_group *group_for(struct attacher *a, struct bpf_program *prog, const char *path,
				     int retprobe)
{
	struct probe_group *g;

	for (size_t i = a->ngroups; i-- > a->nattached;) { /* attached ones are closed */
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
		unsigned long *o = realloc(g->offsets, cap * sizeof(*o));
		__u64 *c;

		if (!o)
			return -ENOMEM;
		g->offsets = o;
		c = realloc(g->cookies, cap * sizeof(*c));
		if (!c)
			return -ENOMEM;
		g->cookies = c;
		g->cap = cap;
	}
	g->offsets[g->cnt] = offset;
	g->cookies[g->cnt] = cookie;
	g->cnt++;
	a->nprobes++;
	return 0;
}

/* Keeps link, or destroys it when it cannot be kept. */
static int push_link(struct attacher *a, struct bpf_link *link)
{
	if (a->nlinks == a->links_cap) {
		size_t cap = a->links_cap ? a->links_cap * 2 : 16;
		struct bpf_link **l = realloc(a->links, cap * sizeof(*l));

		if (!l) {
			bpf_link__destroy(link);
			return -ENOMEM;
		}
		a->links = l;
		a->links_cap = cap;
	}
	a->links[a->nlinks++] = link;
	return 0;
}

/* The kernel takes at most this many addresses in one link
 * (MAX_UPROBE_MULTI_CNT). */
#define MULTI_LINK_MAX (1u << 20)

static int attach_multi_range(struct attacher *a, struct probe_group *g, size_t first, size_t cnt)
{
	LIBBPF_OPTS(bpf_uprobe_multi_opts, uo, .offsets = g->offsets + first,
		    .cookies = g->cookies + first, .cnt = cnt, .retprobe = g->retprobe);
	struct bpf_link *link;

	link = bpf_program__attach_uprobe_multi(g->prog, a->opts.pid > 0 ? a->opts.pid : -1,
						g->path, NULL, &uo);
	if (!link)
		return -errno;
	return push_link(a, link);
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
		err = push_link(a, link);
		if (err)
			return err;
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
	for (; a->nattached < a->ngroups; a->nattached++) {
		struct probe_group *g = &a->groups[a->nattached];
		int ret = a->mode == ATTACH_MULTI ? attach_multi(a, g) : attach_perf(a, g);

		if (ret) {
			describe_failure(a, g, ret, err, errlen);
			a->nattached = a->ngroups; /* a failed group is not retried */
			return ret;
		}
	}
	return 0;
}

size_t attacher__probe_count(const struct attacher *a)
{
	return a->nprobes;
}

/* Perf-event teardown is serialised in the kernel (parallel closing saved
 * ~15%); uprobe_multi links share their grace periods when closed in
 * parallel (link_release.h). */
static void detach_all(struct attacher *a)
{
	link_release__parallel(a->links, a->nlinks);
}

int attacher__free_in_background(struct attacher *a, const int *extra, size_t nextra)
{
	int err;

	if (!a)
		return 0;
	if (a->mode != ATTACH_MULTI)
		return -ENOTSUP; /* perf links hold a perf event fd libbpf keeps */
	err = link_release__background(a->links, a->nlinks, extra, nextra);
	if (err)
		return err;
	a->nlinks = 0;
	attacher__free(a);
	return 0;
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
