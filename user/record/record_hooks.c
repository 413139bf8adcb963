// SPDX-License-Identifier: MIT
/* record_hooks.c: the recording's process-scope hooks (record_int.h):
 * exec, fork, rename and thread exits of the traced processes, and the
 * holds at their new executable mappings (mappings.h), with the call
 * programs the holds attach. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "probes/syscall_tp.h"
#include "record/record_int.h"
#include "sledtrace.h"
#include "sledtrace.skel.h"

/* The call programs: one for every sled kind (the cookie tells them
 * apart), one for uretprobe returns. */
struct object_probes record__call_programs(const struct record *r)
{
	return (struct object_probes){
		.progs = {
			.entry = r->skel->progs.on_sled,
			.exit = r->skel->progs.on_sled,
			.tail = r->skel->progs.on_sled,
			.ret = r->skel->progs.on_ret,
			.cap_entry = r->skel->progs.on_capture_entry,
			.cap_exit = r->skel->progs.on_capture_exit,
			.cap_ret = r->skel->progs.on_capture_ret,
		},
		.capture_specs_fd = r->capture ? bpf_map__fd(r->skel->maps.capture_specs) : -1,
	};
}

/* Holds come from mmap's own syscall tracepoint, which runs the program
 * for mmaps only; the raw syscall exit runs it at every syscall of the
 * machine (~20% of a call-heavy target's CPU) and is the fallback.
 * SLEDTRACE_NO_MMAP_TRACEPOINT=1 decides as on a kernel without syscall
 * tracepoints (tests, comparisons). */
static int hook_mmap(struct record *r)
{
	const char *off = getenv("SLEDTRACE_NO_MMAP_TRACEPOINT");
	char how[256] = "SLEDTRACE_NO_MMAP_TRACEPOINT";

	char enter_how[256];
	int *fds = r->hooks.mmap_fds;

	if (!off || !strcmp(off, "0"))
		fds[0] = syscall_tp__attach(bpf_program__fd(r->skel->progs.on_mmap_exit),
					    "syscalls", "sys_exit_mmap", how, sizeof(how));
	/* The entry after the exit: a marker set at an entry is always
	 * cleared at its exit.  Without it a fork racing a hold is seen only
	 * once the parent is held (on_fork). */
	if (fds[0] >= 0)
		fds[1] = syscall_tp__attach(bpf_program__fd(r->skel->progs.on_mmap_enter),
					    "syscalls", "sys_enter_mmap", enter_how,
					    sizeof(enter_how));
	r->skel->bss->mmap_by_raw_exit = fds[0] < 0;
	/* Forked children are caught at their return from fork there too. */
	if (fds[0] < 0 || r->skel->bss->fix_forks || r->skel->bss->hold_forks)
		r->hooks.syscall_exit = bpf_program__attach(r->skel->progs.on_syscall_exit);
	if (fds[0] < 0 && !r->hooks.syscall_exit)
		return record__fail(-errno, "cannot watch new mappings: %s (mmap tracepoint: %s)",
				    strerror(errno), how);
	if ((r->skel->bss->fix_forks || r->skel->bss->hold_forks) && !r->hooks.syscall_exit)
		return record__fail(-errno, "cannot watch forked children: %s", strerror(errno));
	if (r->opts->verbose && fds[0] >= 0)
		fprintf(stderr, "sledtrace: holds: mmap syscall tracepoint (id from %s)%s\n", how,
			fds[1] < 0 ? "; no entry tracepoint: forks racing a hold seen late" : "");
	else if (r->opts->verbose)
		fprintf(stderr, "sledtrace: holds: raw syscall-exit fallback (%s)\n", how);
	return 0;
}

/* New executable mappings of traced processes stop them until their
 * objects are probed (mappings.h); files known now cost no stop. */
int record__hook_processes(struct record *r)
{
	int err;

	if (r->opts->costs && !r->allocs &&
	    (err = alloc_probes__new(r->skel->progs.on_alloc, r->skel->progs.on_alloc_ret,
				     r->opts->alloc_fns, r->opts->nalloc_fns, &r->allocs)))
		return record__fail(err, "out of memory");
	/* a forked child gets its own allocator probes before it runs */
	r->skel->bss->hold_forks = r->allocs != NULL;
	r->watch = (struct mapping_watch){
		.objs = r->objs,
		.att = r->att,
		.probes = record__call_programs(r),
		.exits = &r->exits,
		.col = r->col,
		.fb = r->fb,
		.known_fd = bpf_map__fd(r->skel->maps.known_files),
		.held_fd = bpf_map__fd(r->skel->maps.held),
		.hold_seq = (const volatile uint64_t *)&r->skel->bss->hold_seq,
		/* Only where the policy runs copies: -p targets keep the files
		 * they map, and their copies struct was never set up. */
		.copies = r->exits.copy == EXIT_COPY_REWRITTEN && r->copies.ns_fd >= 0 ? &r->copies
										       : NULL,
		.gaps = &r->gaps,
		.allocs = r->allocs,
		.repair_forks = r->skel->bss->fix_forks,
	};
	/* fork and rename also name new threads and processes (collector.h). */
	r->hooks.exec = bpf_program__attach(r->skel->progs.on_exec);
	if (r->hooks.exec)
		r->hooks.fork = bpf_program__attach(r->skel->progs.on_fork);
	if (r->hooks.fork)
		r->hooks.rename = bpf_program__attach(r->skel->progs.on_rename);
	if (!r->hooks.exec || !r->hooks.fork || !r->hooks.rename)
		return record__fail(-errno, "cannot watch exec, fork and rename: %s",
				    strerror(errno));
	if (!r->skel->rodata->hold_mappings)
		return 0;
	r->hooks.sigcont = bpf_program__attach(r->skel->progs.on_signal);
	if (!r->hooks.sigcont)
		return record__fail(-errno, "cannot watch resumes of held processes: %s",
				    strerror(errno));
	err = mapping_watch__mark_objects(&r->watch);
	if (err)
		return record__fail(err, "cannot mark known files: %s", strerror(-err));
	err = hook_mmap(r);
	if (err)
		return err;
	/* What -p targets mapped since they were first read is found now;
	 * what they map from here on is held. */
	for (size_t i = 0; !err && i < r->targets.n; i++)
		err = mapping_watch__scan(&r->watch, r->targets.pids[i]);
	if (err)
		return record__fail(err, "cannot read the mappings of a target: %s",
				    strerror(-err));
	return 0;
}

void record__allocs_event(struct record *r, const void *rec, unsigned kind)
{
	const struct sled_thread_exit *e = rec;

	if (kind == SLED_KIND_EXEC ||
	    (kind == SLED_KIND_THREAD_EXIT && e->process_ended && e->h.tid == e->h.tgid))
		alloc_probes__gone(r->allocs, (pid_t)e->h.tgid);
}

static int add_traced(struct record *r, pid_t pid)
{
	uint32_t tgid = (uint32_t)pid, one = 1;

	if (bpf_map_update_elem(bpf_map__fd(r->skel->maps.traced), &tgid, &one, BPF_ANY))
		return record__fail(-errno, "cannot set the traced pid: %s", strerror(errno));
	return 0;
}

/* record --costs: every system call and user page fault of the machine
 * runs a program while it records (one map lookup for a process outside
 * the traced ones); allocators are probed per process (alloc_probes.h). */
static int watch_costs(struct record *r)
{
	if (!(r->hooks.sys_enter = bpf_program__attach(r->skel->progs.on_sys_enter)))
		return record__fail(-errno, "cannot watch system calls for --costs: %s",
				    strerror(errno));
	if (!(r->hooks.fault = bpf_program__attach(r->skel->progs.on_fault)))
		return record__fail(-errno, "cannot watch page faults for --costs: %s",
				    strerror(errno));
	return 0;
}

/* Thread exits close what a thread left open, at the right time, and keep
 * a reused tid from inheriting a dead thread's frames. */
int record__watch_exits(struct record *r)
{
	int err = 0;

	if (r->child.pid > 0)
		err = add_traced(r, r->child.pid);
	for (size_t i = 0; !err && i < r->targets.n; i++)
		err = add_traced(r, r->targets.pids[i]);
	if (err)
		return err;
	for (size_t i = 0; !err && i < r->targets.n; i++)
		err = collector__seed(r->col, (uint32_t)r->targets.pids[i]);
	if (err)
		return record__fail(err, "out of memory");
	r->hooks.exit = bpf_program__attach(r->skel->progs.on_thread_exit);
	if (!r->hooks.exit)
		return record__fail(-errno, "cannot watch thread exits: %s", strerror(errno));
	if (!r->opts->no_sched && !(r->hooks.sched = bpf_program__attach(r->skel->progs.on_switch)))
		return record__fail(-errno, "cannot watch the scheduler's switches: %s",
				    strerror(errno));
	if (!r->opts->no_causes &&
	    !(r->hooks.waking = bpf_program__attach(r->skel->progs.on_waking)))
		return record__fail(-errno, "cannot watch the scheduler's wakeups: %s",
				    strerror(errno));
	return r->opts->costs ? watch_costs(r) : 0;
}

void record__unhook_processes(struct record *r)
{
	struct bpf_link **links[] = { &r->hooks.exec, &r->hooks.syscall_exit, &r->hooks.fork,
				      &r->hooks.rename, &r->hooks.sigcont };

	for (size_t i = 0; i < sizeof(links) / sizeof(links[0]); i++) {
		bpf_link__destroy(*links[i]);
		*links[i] = NULL;
	}
}

void record__unwatch_exits(struct record *r)
{
	bpf_link__destroy(r->hooks.exit);
	bpf_link__destroy(r->hooks.sched);
	bpf_link__destroy(r->hooks.waking);
	bpf_link__destroy(r->hooks.sys_enter);
	bpf_link__destroy(r->hooks.fault);
	r->hooks.exit = r->hooks.sched = r->hooks.waking = NULL;
	r->hooks.sys_enter = r->hooks.fault = NULL;
}
