/* SPDX-License-Identifier: MIT */
/* bench.h: `sledtrace bench`'s work, the whole CI job in one call.  Runs
 * each command warmup times unrecorded, then records each runs times,
 * interleaved base, head, head, base, ... so that load or a drifting
 * machine hits both sides alike, into dir; then compares them
 * (diff/compare.h): the table on standard output, dir/diff.json and
 * dir/summary.md (and summary, appended; bmf, the head side for Bencher).  Each recording is `sledtrace
 * record` run as a child process (this very executable), so bench records
 * exactly what a hand-written job would and links nothing of record/. */
#ifndef SLEDTRACE_BENCH_BENCH_H
#define SLEDTRACE_BENCH_BENCH_H

#include <stddef.h>
#include <stdint.h>

#include "diff/compare.h"

struct bench_opts {
	/* base's and head's command lines: a simple one is run directly, one
	 * with shell syntax by sh -c */
	const char *cmd[2];
	const char *dir;     /* created; it must hold no traces yet */
	const char *summary; /* NULL, or a file the markdown is appended to */
	/* NULL, or a file the head side goes to as Bencher Metric Format
	 * (diff/print_bmf.c): created before the runs, so that a path that
	 * cannot be written fails at once, and named only when whole */
	const char *bmf;
	const char *budget; /* "off", or what record --budget takes ("5%") */
	uint32_t runs, warmup;
	/* more than runs: when the runs leave the verdict inconclusive, or
	 * pass without clearing every function, and more could decide it,
	 * record up to this many a side and look again (each look at half the
	 * error rate); else runs */
	uint32_t max_runs;
	const char *const *record_opts; /* for every recording, as record spells them */
	size_t nrecord_opts;
	unsigned width; /* the terminal's columns for the table, 0: no limit */
};

/* Returns the comparison's verdict (enum diff_verdict), or -1 with one
 * line on stderr: a command that fails or cannot be recorded, a directory
 * that holds traces, runs that cannot be compared.  diff: the
 * comparison's settings; top: at most this many functions shown, 0: all. */
int bench__run(const struct bench_opts *o, const struct diff_opts *diff, size_t top);

#endif
