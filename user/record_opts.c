/* record_opts.c: see record_opts.h. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record_opts.h"

#define DEFAULT_RING (64ull << 20)

static void usage(FILE *f)
{
	fprintf(f,
		"usage: sledtrace record [OPTIONS] -- COMMAND [ARGS...]\n"
		"Runs COMMAND with every XRay-instrumented function of its executable traced.\n"
		"  -o, --output FILE     trace file (default sledtrace.pftrace)\n"
		"      --exit=MODE       auto (default): uretprobe for objects that cannot unwind,\n"
		"                        sled for those that can (C++, Rust);\n"
		"                        sled: exit-sled uprobes (exact and safe, slow);\n"
		"                        uretprobe: fast, aborts targets that unwind (exceptions);\n"
		"                        infer: entry probes only, exits inferred (fastest)\n"
		"      --attach=MODE     auto (default), multi (uprobe_multi), perf (one per probe)\n"
		"      --ring-size=SIZE  BPF ring buffer size, power of two (default 64M)\n"
		"      --mangled         keep raw symbol names\n"
		"  -q, --quiet           no status line, no summary\n");
}

static int parse_size(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 10);

	if (end == s)
		return -EINVAL;
	switch (*end) {
	case 'k': case 'K': v <<= 10; end++; break;
	case 'm': case 'M': v <<= 20; end++; break;
	case 'g': case 'G': v <<= 30; end++; break;
	}
	if (*end || v < 4096 || (v & (v - 1)))
		return -EINVAL;
	*out = v;
	return 0;
}

static int parse_enum(const char *arg, const char *const names[], int n, int *out)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(arg, names[i])) {
			*out = i;
			return 0;
		}
	return -EINVAL;
}

enum { OPT_EXIT = 256, OPT_ATTACH, OPT_RING, OPT_MANGLED };

static int parse_one(struct record_opts *o, int c, const char *arg)
{
	static const char *const exits[] = { "auto", "sled", "uretprobe", "infer" };
	static const char *const attach[] = { "auto", "multi", "perf" };
	int v;

	switch (c) {
	case 'o':
		o->output = arg;
		return 0;
	case 'q':
		o->quiet = true;
		return 0;
	case OPT_MANGLED:
		o->mangled = true;
		return 0;
	case OPT_EXIT:
		if (parse_enum(arg, exits, 4, &v))
			break;
		o->exits = (enum exit_mode)v;
		return 0;
	case OPT_ATTACH:
		if (parse_enum(arg, attach, 3, &v))
			break;
		o->attach = (enum attach_mode)v;
		return 0;
	case OPT_RING:
		if (!parse_size(arg, &o->ring_size))
			return 0;
		fprintf(stderr, "sledtrace: --ring-size wants a power of two >= 4096, like 64M: '%s'\n", arg);
		return -EINVAL;
	default:
		return -EINVAL;
	}
	fprintf(stderr, "sledtrace: bad value '%s' (see 'sledtrace record --help')\n", arg);
	return -EINVAL;
}

int record_opts__parse(struct record_opts *o, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "exit", required_argument, NULL, OPT_EXIT },
		{ "attach", required_argument, NULL, OPT_ATTACH },
		{ "ring-size", required_argument, NULL, OPT_RING },
		{ "mangled", no_argument, NULL, OPT_MANGLED },
		{ 0 },
	};
	int c;

	*o = (struct record_opts){ .output = "sledtrace.pftrace", .ring_size = DEFAULT_RING };
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+o:qh", longopts, NULL)) != -1) {
		if (c == 'h') {
			usage(stdout);
			return 1;
		}
		if (c == '?' || c == ':') {
			fprintf(stderr, "sledtrace: record: bad option '%s' (see 'sledtrace record --help')\n",
				argv[optind - 1]);
			return -EINVAL;
		}
		if (parse_one(o, c, optarg))
			return -EINVAL;
	}
	if (optind >= argc) {
		fprintf(stderr, "sledtrace: record: no command given (sledtrace record -o OUT -- COMMAND ...)\n");
		return -EINVAL;
	}
	o->argv = argv + optind;
	return 0;
}
