/* SPDX-License-Identifier: MIT */
/* record_opts.h: everything `sledtrace record` is told on its command line.
 * The command line is parsed in cli/cmd_record.c; the recording code reads
 * these settings, never argv. */
#ifndef SLEDTRACE_RECORD_OPTS_H
#define SLEDTRACE_RECORD_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "probes/attach.h"
#include "probes/exit_policy.h"
#include "select/budget.h"
#include "select/select.h"

struct record_opts {
	const char *output;
	enum exit_mode exits;
	enum attach_mode attach;
	uint64_t ring_size;
	bool quiet;
	int verbose; /* 1: phase timings and the probe plan; 2: libbpf too */
	bool mangled;
	struct select_args sel;	   /* -F, -N, --filter-file, --allow-empty */
	uint32_t max_depth;	   /* 0: unlimited */
	uint64_t min_duration_ns;  /* 0: keep every call */
	bool no_xray;		   /* probe symbols, not sleds */
	bool all;		   /* --no-xray without a filter */
	const char *debug_dir;	   /* --no-xray: where debug files are; NULL: default */
	bool no_events;		   /* benchmarks: probes fire, BPF emits nothing */
	bool no_causes;		   /* no spawn or wakeup causes (DESIGN.md, "Causes") */
	bool no_sched;		   /* no switch events: no on-CPU time */
	bool costs;		   /* allocations, syscalls, faults per call (DESIGN.md, "Costs") */
	const char *alloc_fns[16]; /* --alloc-fn SYM: allocators of the program's own */
	size_t nalloc_fns;
	char **argv;	/* the command, NULL-terminated; NULL with -p */
	pid_t pids[64]; /* -p PID[,PID...]: running processes */
	size_t npids;
	uint64_t duration_ns;	 /* -p: stop after this long; 0: until a signal or exit */
	bool follow;		 /* -p: their future children too (a command's always) */
	bool as_root;		 /* under sudo, keep root for the command */
	bool strict;		 /* exit non-zero unless the trace is exact */
	const char *objects[64]; /* --object GLOB: only objects whose path matches */
	size_t nobjects;
	const char *under[64]; /* --under REGEX: only calls inside these functions */
	size_t nunder;
	const char *captures[64]; /* --capture SPEC (select/capture.h), checked */
	size_t ncaptures;
	const char *flows[16]; /* --flow SEND:N=RECV:M (select/capture.h), checked */
	size_t nflows;
	double budget;		    /* --budget: a share of the program's time; 0: none */
	const char *budget_from[8]; /* --budget-from: the profiles; none: a counting pass */
	size_t nbudget_from;
	const struct budget *plan; /* what the budget leaves unprobed (cmd_record.c) */
	bool silent;		   /* the counting pass: the command's streams discarded */
	uint64_t untraced_cpu_ns;  /* --budget: the command's own CPU time untraced
				   * (--untraced-cpu, or measured for the plan) */
};

#endif
