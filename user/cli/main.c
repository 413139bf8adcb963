// SPDX-License-Identifier: MIT
/* main.c: sledtrace's entry point.  Dispatches to a subcommand, whose
 * options are parsed by the one parser (options.h); `sledtrace help
 * [COMMAND]` and --help/--version work the same everywhere. */
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "cli/options.h"

static const struct cli_command *const commands[] = {
	&cmd_record, &cmd_list, &cmd_report, &cmd_convert, &cmd_filter, &cmd_diff, &cmd_bench,
};
#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *f)
{
	fprintf(f, "usage: sledtrace COMMAND [OPTIONS] [ARGS...]\n\ncommands:\n");
	for (size_t i = 0; i < NCOMMANDS; i++)
		fprintf(f, "  %-8s %s\n", commands[i]->name, commands[i]->summary);
	fprintf(f, "  %-8s %s\n", "help", "describe sledtrace, or one COMMAND and its options");
	fprintf(f,
		"\noptions:\n"
		"  -h, --help     show this help and exit\n"
		"      --version  print the version and exit\n"
		"\n'sledtrace help COMMAND' or 'sledtrace COMMAND --help' describes a command's\n"
		"options.  Exit status: 0 success, 1 runtime failure, 2 usage error (record:\n"
		"otherwise the traced command's own status; diff and bench: 1 when a --fail-on\n"
		"rule fires, 2 when the runs cannot be compared).\n");
}

static const struct cli_command *find(const char *name)
{
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (!strcmp(name, commands[i]->name))
			return commands[i];
	return NULL;
}

static int help(int argc, char **argv)
{
	const struct cli_command *c = argc > 2 ? find(argv[2]) : NULL;

	if (argc > 3 || (argc == 3 && !c)) {
		fprintf(stderr, "sledtrace: help: %s '%s' (try 'sledtrace help')\n",
			argc > 3 ? "unexpected operand" : "unknown command",
			argv[argc > 3 ? 3 : 2]);
		return EXIT_USAGE;
	}
	if (c)
		cli_help(c, stdout);
	else
		usage(stdout);
	return EXIT_OK;
}

int main(int argc, char **argv)
{
	const struct cli_command *c;

	if (argc < 2) {
		fprintf(stderr, "sledtrace: no command given (try 'sledtrace help')\n");
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help"))
		return help(argc, argv);
	if (!strcmp(argv[1], "--version")) {
		printf("%s\n", SLEDTRACE_VERSION_LINE);
		return EXIT_OK;
	}
	c = find(argv[1]);
	if (c)
		return cli_main(c, argc - 1, argv + 1);
	fprintf(stderr, "sledtrace: unknown command '%s' (try 'sledtrace help')\n", argv[1]);
	return EXIT_USAGE;
}
