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

enum convert_format {
	CONVERT_FOLDED,
	CONVERT_PPROF,
	CONVERT_CHROME,
	CONVERT_POLA,
	CONVERT_CGR,
	CONVERT_DOT,
	CONVERT_SVG,
	CONVERT_PERFETTO,
};

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
};

/* "folded", "pprof", ... -> format, or -1. */
int convert__format(const char *name);
/* Whether the format's output sums self or total times, which --times
 * changes (folded by self time, pprof, dot, svg); false for timelines
 * (chrome, pola, perfetto) and formats without times (cgr, folded calls). */
bool convert__sums_times(enum convert_format to, enum folded_weight weight);
/* Returns 0, or a negative errno with one line (no newline) in err.  A
 * trace that lost events converts, with a line in warn (else warn[0] is
 * 0). */
int convert__run(const struct convert_opts *o, char *err, size_t errlen, char *warn,
		 size_t warnlen);

#endif
