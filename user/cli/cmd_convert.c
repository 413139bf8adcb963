// SPDX-License-Identifier: MIT
/* cmd_convert.c: `sledtrace convert`: reads a trace once through the one
 * reader and frame model and writes it in another format. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "model/calltree.h"
#include "cli/commands.h"
#include "format/folded.h"
#include "util/output_file.h"
#include "format/perfetto_reader.h"

struct convert_args {
	const char *in, *out;
	enum folded_weight weight;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: sledtrace convert --to=folded [--weight=self|calls] TRACE [-o OUT]\n"
		"  --to=folded         folded stacks, one line per call path (flame graphs)\n"
		"  --weight=self       self time in ns per path (default); calls: call counts\n"
		"  -o, --output OUT    write OUT (atomically) instead of standard output\n");
}

static int parse_args(int argc, char **argv, struct convert_args *a)
{
	static const struct option opts[] = {
		{ "to", required_argument, NULL, 't' },
		{ "weight", required_argument, NULL, 'w' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
		if (c == 'h') {
			usage(stdout);
			return 0;
		} else if (c == 'o') {
			a->out = optarg;
		} else if (c == 't' && !strcmp(optarg, "folded")) {
			continue;
		} else if (c == 'w' && (!strcmp(optarg, "self") || !strcmp(optarg, "calls"))) {
			a->weight = !strcmp(optarg, "calls") ? FOLDED_CALLS : FOLDED_SELF_NS;
		} else {
			fprintf(stderr,
				"sledtrace: convert: bad option '%s' (see 'sledtrace convert --help')\n",
				argv[optind - 1]);
			return 2;
		}
	}
	if (argc - optind != 1) {
		fprintf(stderr,
			"sledtrace: convert: expected one TRACE (see 'sledtrace convert --help')\n");
		return 2;
	}
	a->in = argv[optind];
	return -1;
}

struct folded_job {
	const struct calltree *ct;
	enum folded_weight weight;
};

static int write_folded(FILE *f, void *ctx)
{
	const struct folded_job *job = ctx;

	return folded__write(job->ct, job->weight, f);
}

static int write_out(const struct convert_args *a, const struct calltree *ct)
{
	struct folded_job job = { ct, a->weight };
	char err[8192];
	int ret;

	if (!a->out || !strcmp(a->out, "-"))
		return folded__write(ct, a->weight, stdout) || fflush(stdout) ? -EIO : 0;
	ret = output_file__write_stream(a->out, write_folded, &job, err, sizeof(err));
	if (ret)
		fprintf(stderr, "sledtrace: %s\n", err);
	return ret;
}

int cmd_convert(int argc, char **argv)
{
	struct convert_args a = { .weight = FOLDED_SELF_NS };
	struct calltree *ct = NULL;
	struct frame_sink sink;
	char err[8192];
	int ret = parse_args(argc, argv, &a);

	if (ret >= 0)
		return ret;
	if (calltree__new(&ct)) {
		fprintf(stderr, "sledtrace: out of memory\n");
		return 1;
	}
	sink = calltree__sink(ct);
	ret = perfetto_reader__read(a.in, &sink, err, sizeof(err));
	if (ret)
		fprintf(stderr, "sledtrace: %s\n", err);
	else
		ret = write_out(&a, ct);
	calltree__free(ct);
	return ret ? 1 : 0;
}
