// SPDX-License-Identifier: MIT
/* main.c: sledtrace's entry point.  Only dispatches to a subcommand; every
 * command parses its own options (see commands.h). */
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"

static const struct {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *help;
} commands[] = {
	{ "record", cmd_record, "run a command and trace its XRay-instrumented functions" },
	{ "list", cmd_list, "list the instrumented functions of an object" },
	{ "report", cmd_report, "per-function table (calls, total, self) of a trace" },
	{ "convert", cmd_convert, "convert a trace (folded stacks)" },
	{ "filter", cmd_filter, "write a filter file (regexes or exact names) for an object" },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: sledtrace COMMAND [OPTIONS]\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].help);
	fprintf(f, "\n'sledtrace COMMAND --help' describes a command's options.\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("sledtrace 0.1.0\n");
		return 0;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].run(argc - 1, argv + 1);
	fprintf(stderr, "sledtrace: unknown command '%s' (try 'sledtrace --help')\n", argv[1]);
	return 2;
}
