/* SPDX-License-Identifier: MIT */
/* compare.h: one whole comparison, from the trace paths of both sides to
 * every output and a verdict: what `sledtrace diff` and `sledtrace bench`
 * run once their options are read.  The command line turns the verdict
 * into an exit status (--inconclusive). */
#ifndef SLEDTRACE_DIFF_COMPARE_H
#define SLEDTRACE_DIFF_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "diff/print.h"

/* One place the comparison goes: a format to a stream. */
struct diff_output {
	enum diff_format format;
	FILE *f;
	unsigned width;	  /* table: the terminal's columns, 0: no limit */
	const char *name; /* for an error message */
};

struct diff_compare {
	const struct diff_opts *opts; /* calls_elsewhere is set from calls */
	size_t top;		      /* at most this many functions shown; 0: all */
	const char *cmd;	      /* "diff", "bench": names the command in messages */
	/* The rules that fired or could not decide are also listed on
	 * stderr (outputs that are files tell the CI log nothing). */
	bool log_findings;
};

/* Reads the traces, compares and prints to every output; an inconclusive
 * verdict's reasons go to stderr.  calls: NULL, or per side a trace whose
 * calls and call paths replace those of that side's runs (bench: runs with
 * a budget have their times, one run with every function probed their
 * calls; read_traces.h).  Returns the verdict (enum diff_verdict), or -1
 * with one line on stderr: an unreadable trace, runs that cannot be
 * compared, an output that cannot be written, no memory. */
int diff_compare__run(const struct diff_compare *c, char **const paths[2], const size_t npaths[2],
		      const char *const *calls, const struct diff_output *outs, size_t nouts);

/* The verdict alone, as diff_compare__run would give it, with nothing
 * printed but errors, and *runs_needed: the runs per side that would
 * decide what it left open, the rules it could not decide and the
 * functions a pass does not clear (0: nothing open, unknown, or more than
 * 99).  bench --max-runs looks so before it records more. */
int diff_compare__judge(const struct diff_compare *c, char **const paths[2], const size_t npaths[2],
			const char *const *calls, unsigned *runs_needed);

#endif
