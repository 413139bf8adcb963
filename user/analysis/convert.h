/* SPDX-License-Identifier: MIT */
/* convert.h: `sledtrace convert`'s work, apart from option parsing: read
 * a trace once through the one reader and frame model and write it in
 * another format (docs/exports.md).  Outputs appear whole or not at all. */
#ifndef SLEDTRACE_CONVERT_H
#define SLEDTRACE_CONVERT_H

#include <stdbool.h>
#include <stddef.h>

#include "analysis/report.h"
#include "format/folded.h"

/* The formats convert writes, one line each: the one table that --to's
 * values and help (cli/cmd_convert.c), enum convert_format and
 * convert__run's dispatch all read.  F(ID, NAME, RUN, TREE, FLAGS, HELP):
 * CONVERT_ID is the format, NAME its --to value; RUN is how convert.c
 * writes it: "tree" reads the trace into a call tree and then hands that to
 * TREE's writer, the others stream (TREE none); FLAGS are CONVERT_*; HELP is
 * its clause in --to's help. */
#define CONVERT_FORMATS(F)                                                                        \
	F(FOLDED, "folded", tree, folded, CONVERT_SUMS_TIMES | CONVERT_STITCHES,                  \
	  "folded stacks (flame graph input)")                                                    \
	F(PPROF, "pprof", tree, pprof, CONVERT_SUMS_TIMES | CONVERT_BY_THREAD | CONVERT_STITCHES, \
	  "gzip'd pprof profile")                                                                 \
	F(CHROME, "chrome", chrome, none, 0, "Chrome trace JSON")                                 \
	F(POLA, "pola", pola, none, CONVERT_FILES,                                                \
	  "sftrace's Parquet layout (OUT, OUT.symtab and OUT.values)")                            \
	F(CGR, "cgr", tree, cgr, 0, "code-graph-rag call edges")                                  \
	F(DOT, "dot", tree, dot, CONVERT_SUMS_TIMES, "Graphviz call graph")                       \
	F(SVG, "svg", tree, svg, CONVERT_SUMS_TIMES | CONVERT_STITCHES, "flame graph")            \
	F(PERFETTO, "perfetto", perfetto, none, CONVERT_TRACE_FILE, "gzip'd copy of the trace")

/* The output sums self or total times, which --times changes (folded
 * only by self time: --weight=calls has no times).  Timelines (chrome,
 * pola, perfetto) keep the real timestamps. */
#define CONVERT_SUMS_TIMES 1u
/* pprof: a call tree per thread. */
#define CONVERT_BY_THREAD 2u
/* Writes OUT and files named after it, so -o FILE is required. */
#define CONVERT_FILES 4u
/* Reads TRACE twice, so it must be a file, not standard input. */
#define CONVERT_TRACE_FILE 8u
/* Draws stacks, which --stitch can join across threads (model/stitch.h). */
#define CONVERT_STITCHES 16u

#define CONVERT_ENUM_(id, name, run, tree, flags, help) CONVERT_##id,
enum convert_format { CONVERT_FORMATS(CONVERT_ENUM_) CONVERT_NFORMATS };

/* --to's values in enum convert_format's order, NULL-terminated. */
extern const char *const convert_format_names[];
/* --to's help, "folded: folded stacks (...); pprof: ...": every clause
 * brings its "; ", and the first one's is skipped. */
#define CONVERT_HELP_CLAUSE_(id, name, run, tree, flags, help) "; " name ": " help
#define CONVERT_FORMATS_HELP (CONVERT_FORMATS(CONVERT_HELP_CLAUSE_) + 2)

struct convert_opts {
	enum convert_format to;
	const char *in;
	const char *out; /* NULL or "-": standard output (text formats) */
	enum folded_weight weight;
	const char *repo_root; /* cgr: required */
	unsigned svg_width;    /* pixels; 0: default */
	double svg_min_width;  /* pixels below which frames are left out; <0: default */
	/* Compensated: formats that sum times take the probe cost out of each
	 * call (calltree__compensate); timelines keep real timestamps either way. */
	enum report_times times;
	/* CONVERT_STITCHES formats: a frame with a cause is drawn under its
	 * cause's stack (model/stitch.h); TRACE is read twice. */
	bool stitch;
};

/* "folded", "pprof", ... -> format, or -1. */
int convert__format(const char *name);
/* The format's CONVERT_* flags. */
unsigned convert__flags(enum convert_format to);
/* Whether the output sums times, which --times changes (CONVERT_SUMS_TIMES,
 * and for folded the weight is self time). */
bool convert__sums_times(enum convert_format to, enum folded_weight weight);
/* Returns 0, or a negative errno with one line (no newline) in err.  A
 * trace that lost events converts, with a line in warn (else warn[0] is
 * 0). */
int convert__run(const struct convert_opts *o, char *err, size_t errlen, char *warn,
		 size_t warnlen);

#endif
