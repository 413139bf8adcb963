/* SPDX-License-Identifier: MIT */
/* record_opts.h: everything `sledtrace record` is told on its command line,
 * parsed in one place (record_opts.c) so the recording code reads settings,
 * not argv. */
#ifndef SLEDTRACE_RECORD_OPTS_H
#define SLEDTRACE_RECORD_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "probe/attach.h"
#include "probe/probe_plan.h"
#include "probe/select.h"

struct record_opts {
	const char *output;
	enum exit_mode exits;
	enum attach_mode attach;
	uint64_t ring_size;
	bool quiet;
	bool mangled;
	struct select_args sel;	  /* -F, -N, --filter-file, --allow-empty */
	uint32_t max_depth;	  /* 0: unlimited */
	uint64_t min_duration_ns; /* 0: keep every call */
	bool no_xray;		  /* probe symbols, not sleds */
	bool all;		  /* --no-xray without a filter */
	bool no_events;		  /* benchmarks: probes fire, BPF emits nothing */
	char **argv;		  /* the command, NULL-terminated */
};

/* Returns 0, 1 when --help was printed, or -EINVAL after one error line. */
int record_opts__parse(struct record_opts *o, int argc, char **argv);

#endif
