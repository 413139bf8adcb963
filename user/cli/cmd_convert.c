// SPDX-License-Identifier: MIT
/* cmd_convert.c: `sledtrace convert`: reads a trace once through the one
 * reader and frame model and writes it in another format. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "model/calltree.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "format/folded.h"
#include "util/output_file.h"
#include "format/perfetto_reader.h"

enum convert_to { CONVERT_FOLDED };

struct convert_args {
	const char *in, *out;
	int to;	    /* enum convert_to */
	int weight; /* enum folded_weight */
};

#define S struct convert_args

static const char *const to_names[] = { "folded", NULL };
static const char *const weight_names[] = { "self", "calls", NULL };

static const struct cli_option options[] = {
	CLI_ENUM(0, "to", S, to, to_names, "FORMAT", "folded",
		 "folded: folded stacks, one line per call path (flame graph input)"),
	CLI_ENUM(0, "weight", S, weight, weight_names, "WEIGHT", "self",
		 "what a folded line counts: self time in ns, or calls"),
	CLI_STRING('o', "output", S, out, "FILE", "standard output",
		   "write FILE (complete or not at all); a device, FIFO or socket is written "
		   "through"),
	CLI_END,
};

struct folded_job {
	const struct calltree *ct;
	enum folded_weight weight;
};

static int write_folded(FILE *f, void *ctx)
{
	const struct folded_job *job = ctx;

	return folded__write(job->ct, job->weight, f);
}

static int run(void *set, char **operands, int noperands)
{
	struct convert_args *a = set;
	struct folded_job job = { NULL, (enum folded_weight)a->weight };
	struct calltree *ct = NULL;
	struct output_file out;
	struct frame_sink sink;
	char err[8192];
	int ret;

	(void)noperands;
	a->in = operands[0];
	/* A bad -o fails before anything is read. */
	ret = output_file__create(&out, a->out, err, sizeof(err));
	if (!ret && calltree__new(&ct)) {
		snprintf(err, sizeof(err), "out of memory");
		ret = -ENOMEM;
	}
	if (!ret) {
		sink = calltree__sink(ct);
		ret = perfetto_reader__read(a->in, &sink, err, sizeof(err));
	}
	job.ct = ct;
	if (!ret)
		ret = output_file__write_opened(&out, write_folded, &job, err, sizeof(err));
	if (ret)
		fprintf(stderr, "sledtrace: %s\n", err);
	output_file__abort(&out);
	calltree__free(ct);
	return ret ? EXIT_FAILURE_RUN : EXIT_OK;
}

static void init(void *set)
{
	((S *)set)->out = "-";
}

const struct cli_command cmd_convert = {
	.name = "convert",
	.summary = "convert a trace (folded stacks)",
	.synopsis = "[OPTIONS] TRACE",
	.about = "Reads TRACE ('-' is standard input) once and writes it in another format.",
	.operand = "TRACE",
	.options = options,
	.min_operands = 1,
	.max_operands = 1,
	.run = run,
	.settings_size = sizeof(S),
	.init = init,
};
