// SPDX-License-Identifier: MIT
/* record_opts.c: see record_opts.h. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/record_opts.h"

#define DEFAULT_RING (64ull << 20)

static void usage(FILE *f)
{
	fprintf(f,
		"usage: sledtrace record [OPTIONS] -- COMMAND [ARGS...]\n"
		"Runs COMMAND with every XRay-instrumented function of its executable traced.\n"
		"  -o, --output FILE     trace file (default sledtrace.pftrace)\n"
		"      --exit=MODE       auto (default): uretprobe where no exception can unwind\n"
		"                        through (C objects, leaf functions), sled elsewhere;\n"
		"                        sled: exit-sled uprobes (exact and safe, slow);\n"
		"                        uretprobe: fast, aborts targets that unwind (exceptions);\n"
		"                        infer: entry probes only, exits inferred (fastest)\n"
		"      --attach=MODE     auto (default), multi (uprobe_multi), perf (one per probe)\n"
		"      --ring-size=SIZE  BPF ring buffer size, power of two (default 64M)\n"
		"  -F, --filter REGEX    trace functions matching REGEX (POSIX ERE; repeatable)\n"
		"  -N, --exclude REGEX   never trace functions matching REGEX (wins over -F)\n"
		"      --filter-file F   patterns from F (see 'sledtrace filter')\n"
		"      --allow-empty     a filter that selects nothing is not an error\n"
		"      --max-depth N     leave out calls nested deeper than N (counted)\n"
		"      --min-duration D  leave out calls shorter than D: 500ns, 2us, 1ms (counted)\n"
		"      --no-xray         no sleds: probe function symbols (entry + return)\n"
		"      --all             with --no-xray, every function (default needs -F)\n"
		"      --mangled         keep raw symbol names\n"
		"      --no-events       benchmarks: probes fire but record nothing (cost floor)\n"
		"  -q, --quiet           no status line, no summary\n");
}

static int parse_size(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 10);

	if (end == s)
		return -EINVAL;
	switch (*end) {
	case 'k':
	case 'K':
		v <<= 10;
		end++;
		break;
	case 'm':
	case 'M':
		v <<= 20;
		end++;
		break;
	case 'g':
	case 'G':
		v <<= 30;
		end++;
		break;
	}
	/* The kernel takes a u32 size; past 1 GiB a ring only costs memory. */
	if (*end || v < 4096 || v > (1ull << 30) || (v & (v - 1)))
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

enum {
	OPT_EXIT = 256,
	OPT_ATTACH,
	OPT_RING,
	OPT_MANGLED,
	OPT_FILTER_FILE,
	OPT_ALLOW_EMPTY,
	OPT_MAX_DEPTH,
	OPT_MIN_DURATION,
	OPT_NO_XRAY,
	OPT_ALL,
	OPT_NO_EVENTS,
};

/* "2us", "500ns", "1.5ms", "1s"; a bare number is nanoseconds. */
static int parse_duration(const char *s, uint64_t *out)
{
	static const struct {
		const char *unit;
		double ns;
	} units[] = {
		{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 }, { "", 1 },
	};
	char *end;
	double v = strtod(s, &end);

	if (end == s || v < 0)
		return -EINVAL;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(end, units[i].unit)) {
			*out = (uint64_t)(v * units[i].ns + 0.5);
			return 0;
		}
	return -EINVAL;
}

static int parse_selection(struct record_opts *o, int c, const char *arg)
{
	char *end;
	unsigned long v;

	switch (c) {
	case 'F':
	case 'N':
		return select_args__add(&o->sel, (char)c, arg) ? -E2BIG : 0;
	case OPT_FILTER_FILE:
		return select_args__add(&o->sel, 'f', arg) ? -E2BIG : 0;
	case OPT_ALLOW_EMPTY:
		o->sel.allow_empty = true;
		return 0;
	case OPT_NO_XRAY:
		o->no_xray = true;
		return 0;
	case OPT_ALL:
		o->all = true;
		return 0;
	case OPT_NO_EVENTS:
		o->no_events = true;
		return 0;
	case OPT_MAX_DEPTH:
		v = strtoul(arg, &end, 10);
		if (!*end && end != arg && v > 0 && v <= 1000000) {
			o->max_depth = (uint32_t)v;
			return 0;
		}
		fprintf(stderr,
			"sledtrace: record: --max-depth wants a depth from 1 to 1000000, "
			"not '%s'\n",
			arg);
		return -EINVAL;
	case OPT_MIN_DURATION:
		if (!parse_duration(arg, &o->min_duration_ns))
			return 0;
		fprintf(stderr,
			"sledtrace: record: --min-duration wants a time like 500ns, 2us, "
			"1.5ms or 1s, not '%s'\n",
			arg);
		return -EINVAL;
	default:
		return 1; /* not a selection option */
	}
}

static int parse_one(struct record_opts *o, int c, const char *arg)
{
	static const char *const exits[] = { "auto", "sled", "uretprobe", "infer" };
	static const char *const attach[] = { "auto", "multi", "perf" };
	int v = parse_selection(o, c, arg);

	if (v <= 0)
		return v;
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
		if (parse_enum(arg, exits, 4, &v)) {
			fprintf(stderr,
				"sledtrace: record: --exit wants auto, sled, uretprobe or "
				"infer, not '%s'\n",
				arg);
			return -EINVAL;
		}
		o->exits = (enum exit_mode)v;
		return 0;
	case OPT_ATTACH:
		if (parse_enum(arg, attach, 3, &v)) {
			fprintf(stderr,
				"sledtrace: record: --attach wants auto, multi or perf, "
				"not '%s'\n",
				arg);
			return -EINVAL;
		}
		o->attach = (enum attach_mode)v;
		return 0;
	case OPT_RING:
		if (!parse_size(arg, &o->ring_size))
			return 0;
		fprintf(stderr,
			"sledtrace: record: --ring-size wants a power of two from 4K to 1G, "
			"like 64M, not '%s'\n",
			arg);
		return -EINVAL;
	default:
		return -EINVAL;
	}
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
		{ "filter", required_argument, NULL, 'F' },
		{ "exclude", required_argument, NULL, 'N' },
		{ "filter-file", required_argument, NULL, OPT_FILTER_FILE },
		{ "allow-empty", no_argument, NULL, OPT_ALLOW_EMPTY },
		{ "max-depth", required_argument, NULL, OPT_MAX_DEPTH },
		{ "min-duration", required_argument, NULL, OPT_MIN_DURATION },
		{ "no-xray", no_argument, NULL, OPT_NO_XRAY },
		{ "all", no_argument, NULL, OPT_ALL },
		{ "no-events", no_argument, NULL, OPT_NO_EVENTS },
		{ 0 },
	};
	int c;

	*o = (struct record_opts){ .output = "sledtrace.pftrace", .ring_size = DEFAULT_RING };
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+o:qhF:N:", longopts, NULL)) != -1) {
		if (c == 'h') {
			usage(stdout);
			return 1;
		}
		if (c == '?' || c == ':') {
			fprintf(stderr,
				"sledtrace: record: bad option '%s' (see 'sledtrace record --help')\n",
				argv[optind - 1]);
			return -EINVAL;
		}
		if (parse_one(o, c, optarg))
			return -EINVAL;
	}
	if (optind >= argc) {
		fprintf(stderr,
			"sledtrace: record: no command given (sledtrace record -o OUT -- COMMAND ...)\n");
		return -EINVAL;
	}
	o->argv = argv + optind;
	if (o->no_xray && !o->all && !o->sel.n) {
		fprintf(stderr,
			"sledtrace: record: --no-xray probes every function symbol: "
			"choose some with -F REGEX, or say --all\n");
		return -EINVAL;
	}
	if (o->no_xray && o->exits == EXIT_SLED) {
		fprintf(stderr,
			"sledtrace: record: --exit=sled needs XRay exit sleds; not with --no-xray\n");
		return -EINVAL;
	}
	return 0;
}
