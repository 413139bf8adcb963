/* SPDX-License-Identifier: MIT */
/* attach.h: the mass attacher.  Probes are queued per (program, file) and
 * attached in one go: one uprobe_multi link per group (kernel >= 6.6,
 * libbpf's bpf_program__attach_uprobe_multi), or one perf-event uprobe per
 * address as the fallback.  Policy in one line: prefer multi, fall back to
 * perf when the kernel lacks uprobe_multi. */
#ifndef SLEDTRACE_ATTACH_H
#define SLEDTRACE_ATTACH_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct bpf_program;
struct bpf_object;

enum attach_mode {
	ATTACH_AUTO,  /* multi when the kernel has it, else perf */
	ATTACH_MULTI, /* uprobe_multi links only */
	ATTACH_PERF,  /* one perf-event uprobe per address */
};

struct attach_opts {
	enum attach_mode mode;
	pid_t pid; /* only this process (and its threads); -1 for any */
};

struct attacher;

int attacher__new(const struct attach_opts *opts, struct attacher **out);
void attacher__free(struct attacher *a); /* detaches everything */
/* Frees a and leaves the kernel's teardown of its uprobe_multi links to a
 * helper process that exits on its own, so the caller does not wait for
 * it.  Only once no traced process can hit the probes any more.  Returns
 * a negative errno, a untouched, when it cannot (perf links, no fork).
 * extra[0..nextra) (each a descriptor or -1), other links whose close
 * waits, go to the same helper. */
int attacher__free_in_background(struct attacher *a, const int *extra, size_t nextra);
/* Resolves ATTACH_AUTO against the running kernel. */
enum attach_mode attacher__mode(const struct attacher *a);
/* Probes attached from now on fire only in pid (and its threads). */
void attacher__set_pid(struct attacher *a, pid_t pid);
/* Must run after bpf_object__open and before load: multi links need the
 * programs loaded with the uprobe_multi expected attach type. */
int attacher__prepare(struct attacher *a, struct bpf_program *prog);
/* attacher__prepare, and prog loaded sleepable (BPF_F_SLEEPABLE: it may
 * fault the target's pages in) when the kernel has sleepable uprobes in
 * the attacher's mode.  1: sleepable, 0: not (an older kernel), or a
 * negative errno. */
int attacher__prepare_sleepable(struct attacher *a, struct bpf_program *prog);
/* Queues one probe.  retprobe: a uretprobe at offset.  path is copied. */
int attacher__add(struct attacher *a, struct bpf_program *prog, const char *path, uint64_t offset,
		  uint64_t cookie, int retprobe);
/* Attaches everything queued since the last call (objects can be added
 * while recording).  On failure err names the file and cause. */
int attacher__attach(struct attacher *a, char *err, size_t errlen);
size_t attacher__probe_count(const struct attacher *a);

#endif
