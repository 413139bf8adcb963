// SPDX-License-Identifier: MIT
/* cmd_convert.c: `sledtrace convert`: its option table; the work is
 * analysis/convert.c's (one reader, one frame model, every format). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/convert.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "cli/times.h"

struct convert_args {
	const char *out;
	int to;	    /* enum convert_format */
	int weight; /* enum folded_weight */
	const char *repo_root;
	uint32_t width;
	const char *min_width;
	int times; /* enum report_times; -1: not given (CLI_TIMES_DEFAULT) */
	bool stitch;
};

#define S struct convert_args

static const char *const weight_names[] = { "self", "calls", NULL };

static const struct cli_option options[] = {
	/* the formats, their names and help: analysis/convert.h's table */
	CLI_ENUM(0, "to", S, to, convert_format_names, "FORMAT", "folded", CONVERT_FORMATS_HELP),
	CLI_ENUM(0, "weight", S, weight, weight_names, "WEIGHT", "self",
		 "what a folded line counts: self time in ns, or calls"),
	CLI_TIMES(S, times),
	CLI_STRING(0, "repo-root", S, repo_root, "DIR", "none",
		   "cgr: only functions whose source is under DIR (absolute)"),
	CLI_UINT(0, "width", S, width, "PX", "1200", 100, 100000, "svg: image width in pixels"),
	CLI_STRING(0, "min-width", S, min_width, "PX", "0.1",
		   "svg: leave out frames narrower than PX pixels"),
	CLI_FLAG(0, "stitch", S, stitch,
		 "folded, pprof, svg: draw a frame another thread caused (created or woke its "
		 "thread) under that frame's stack, so work sits under the call that asked for it "
		 "(reads TRACE twice)"),
	CLI_STRING('o', "output", S, out, "FILE", "standard output",
		   "write FILE (complete or not at all); a device, FIFO or socket is written "
		   "through"),
	CLI_END,
};

static int parse_min_width(const char *s, double *v)
{
	char *end;

	*v = strtod(s, &end);
	return *end || end == s || !(*v >= 0 && *v <= 1000) ? -1 : 0;
}

/* Options that would do nothing are errors. */
static int check(void *set, char *err, size_t errlen)
{
	S *a = set;
	double v;

	if ((a->to == CONVERT_CGR) != (a->repo_root != NULL)) {
		snprintf(err, errlen,
			 a->repo_root ? "--repo-root is for --to=cgr"
				      : "--to=cgr needs --repo-root DIR");
		return -1;
	}
	if (a->repo_root && a->repo_root[0] != '/') {
		snprintf(err, errlen, "--repo-root must be an absolute path: '%s'", a->repo_root);
		return -1;
	}
	if ((a->width || a->min_width) && a->to != CONVERT_SVG) {
		snprintf(err, errlen, "--width and --min-width are for --to=svg");
		return -1;
	}
	if (a->min_width && parse_min_width(a->min_width, &v)) {
		snprintf(err, errlen, "bad --min-width '%s' (pixels, 0 to 1000)", a->min_width);
		return -1;
	}
	if (a->weight != FOLDED_SELF_NS && a->to != CONVERT_FOLDED) {
		snprintf(err, errlen, "--weight is for --to=folded");
		return -1;
	}
	if (a->times >= 0 &&
	    !convert__sums_times((enum convert_format)a->to, (enum folded_weight)a->weight)) {
		snprintf(err, errlen,
			 "--times is for the formats that sum times: folded (--weight=self), "
			 "pprof, dot, svg; chrome, pola and perfetto keep the real timestamps");
		return -1;
	}
	if (a->stitch && !(convert__flags((enum convert_format)a->to) & CONVERT_STITCHES)) {
		snprintf(err, errlen, "--stitch is for --to=folded, pprof and svg");
		return -1;
	}
	if ((convert__flags((enum convert_format)a->to) & CONVERT_FILES) && !strcmp(a->out, "-")) {
		snprintf(err, errlen, "--to=%s writes several files: give -o FILE",
			 convert_format_names[a->to]);
		return -1;
	}
	return 0;
}

static int run(void *set, char **operands, int noperands)
{
	S *a = set;
	struct convert_opts o = {
		.to = (enum convert_format)a->to,
		.in = operands[0],
		.out = a->out,
		.weight = (enum folded_weight)a->weight,
		.repo_root = a->repo_root,
		.svg_width = a->width,
		.svg_min_width = -1,
		.times = a->times < 0 ? CLI_TIMES_DEFAULT : (enum report_times)a->times,
		.stitch = a->stitch,
	};
	char err[8192], warn[512];
	int ret;

	(void)noperands;
	if (a->min_width)
		parse_min_width(a->min_width, &o.svg_min_width);
	ret = convert__run(&o, err, sizeof(err), warn, sizeof(warn));
	if (ret) {
		fprintf(stderr, "sledtrace: %s\n", err);
		/* "convert: ..." is about the command line (TRACE '-' for perfetto) */
		return ret == -EINVAL && !strncmp(err, "convert:", 8) ? EXIT_USAGE
								      : EXIT_FAILURE_RUN;
	}
	if (warn[0])
		fprintf(stderr, "sledtrace: %s\n", warn);
	return EXIT_OK;
}

static void init(void *set)
{
	((S *)set)->out = "-";
	((S *)set)->times = -1;
}

const struct cli_command cmd_convert = {
	.name = "convert",
	.summary = "convert a trace (pprof, chrome, pola, cgr, dot, svg, folded, perfetto)",
	.synopsis = "[OPTIONS] TRACE",
	.about = "Reads TRACE ('-' is standard input) once and writes it in another format "
		 "(docs/exports.md).  A trace that lost events is converted, with a warning.",
	.operand = "TRACE",
	.options = options,
	.min_operands = 1,
	.max_operands = 1,
	.check = check,
	.run = run,
	.settings_size = sizeof(S),
	.init = init,
};
