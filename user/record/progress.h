/* SPDX-License-Identifier: MIT */
/* progress.h: the one status line on stderr while recording (only on a
 * terminal) and the one-line summary at the end.  --quiet silences both. */
#ifndef SLEDTRACE_PROGRESS_H
#define SLEDTRACE_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>

struct progress {
	bool enabled; /* status line: stderr is a terminal and not quiet */
	bool quiet;
	uint64_t last_ns, last_events;
	double rate;
};

void progress__init(struct progress *p, bool quiet);
/* Whether the status line is shown and half a second has passed since it
 * was last drawn: gathering its numbers costs syscalls, so ask first. */
bool progress__due(const struct progress *p);
void progress__tick(struct progress *p, uint64_t events, uint64_t drops);
void progress__clear(struct progress *p);

struct record_summary {
	uint64_t events, functions_hit, functions_attached, drops, bytes;
	uint64_t unmatched, inferred, unfinished;
	uint64_t gaps;	       /* coverage gaps (coverage.h) */
	uint64_t switch_drops; /* on-CPU time is off where these were lost */
	const char *path;
	bool discarded; /* the output was /dev/null: no trace was built */
};
void progress__summary(const struct progress *p, const struct record_summary *s);

#endif
