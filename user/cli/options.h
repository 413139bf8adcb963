/* SPDX-License-Identifier: MIT */
/* options.h: the one option parser of every subcommand.  A command is a
 * table of options; the parser fills the command's settings struct from
 * argv, prints --help from the same table, and reports any error as one
 * "sledtrace: CMD: ..." line (the caller exits 2).
 *
 * Adding an option to a command is one table entry, e.g.
 *     CLI_FLAG('q', "quiet", struct record_opts, quiet, "no status line, no summary"),
 *     CLI_ENUM(0, "exit", struct record_opts, exits, exit_mode_names, "MODE", "auto", "how returns are seen"),
 * plus, when it only means something together with another option, a line
 * in the command's check() (an option that would do nothing is an error),
 * and its line in docs/sledtrace.1 and completion/sledtrace (the cli-docs
 * test fails until both have it).  --help and --version come with every
 * command; enum values and defaults are shown by --help from the entry.
 *
 * Syntax: --name=V, --name V, -xV, -x V, bundled short flags (-qv), "--"
 * ends the options, "-" alone is an operand.  Long names are never
 * abbreviated.  Options may follow operands, except after the first operand
 * of a command with stop_at_operand (record's COMMAND keeps its own). */
#ifndef SLEDTRACE_CLI_OPTIONS_H
#define SLEDTRACE_CLI_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Exit statuses, for every command. */
#define EXIT_OK 0
#define EXIT_FAILURE_RUN 1 /* a runtime failure: I/O, BPF, the target */
#define EXIT_USAGE 2	   /* the command line is wrong */

enum cli_kind {
	CLI_KIND_FLAG,	   /* bool = true */
	CLI_KIND_COUNT,	   /* int += 1 (-v -v) */
	CLI_KIND_STRING,   /* const char * = arg */
	CLI_KIND_UINT,	   /* uint32_t in [min, max] */
	CLI_KIND_SIZE,	   /* uint64_t bytes: 4096, 4K, 64M, 1G */
	CLI_KIND_DURATION, /* uint64_t ns: 500us, 2s, 1m (a unit is required) */
	CLI_KIND_ENUM,	   /* int index into values */
	CLI_KIND_SELECT,   /* appended to a struct select_args (-F, -N, --filter-file) */
	CLI_KIND_LIST,	   /* appended to a struct cli_list */
	CLI_KIND_PERCENT,  /* double fraction: "0.5%" is 0.005, in [min, max) percent */
};

struct cli_option {
	char short_name; /* 0: none */
	const char *name;
	enum cli_kind kind;
	size_t offset; /* of the field in the command's settings */
	const char *metavar;
	const char *def; /* shown as "(default: ...)"; NULL for flags */
	const char *help;
	const char *const *values; /* CLI_KIND_ENUM: NULL-terminated names */
	uint64_t min, max;	   /* CLI_KIND_UINT, CLI_KIND_SIZE (0: no bound) */
	char select_kind;	   /* CLI_KIND_SELECT: 'F', 'N' or 'f' */
	bool pow2;		   /* CLI_KIND_SIZE: a power of two */
};

/* A repeatable option's values, in order. */
struct cli_list {
	const char **v;
	size_t n;
};

#define CLI_OFF(type, field) offsetof(type, field)
#define CLI_FLAG(s, l, type, field, h)                                   \
	{                                                                \
		s, l, CLI_KIND_FLAG, CLI_OFF(type, field), NULL, NULL, h \
	}
#define CLI_COUNT(s, l, type, field, h)                                   \
	{                                                                 \
		s, l, CLI_KIND_COUNT, CLI_OFF(type, field), NULL, NULL, h \
	}
#define CLI_STRING(s, l, type, field, mv, def, h)                       \
	{                                                               \
		s, l, CLI_KIND_STRING, CLI_OFF(type, field), mv, def, h \
	}
#define CLI_UINT(s, l, type, field, mv, def, lo, hi, h)                                     \
	{                                                                                   \
		s, l, CLI_KIND_UINT, CLI_OFF(type, field), mv, def, h, .min = lo, .max = hi \
	}
#define CLI_SIZE(s, l, type, field, def, lo, hi, p2, h)                                          \
	{                                                                                        \
		s, l, CLI_KIND_SIZE, CLI_OFF(type, field), "SIZE", def, h, .min = lo, .max = hi, \
									   .pow2 = p2            \
	}
#define CLI_DURATION(s, l, type, field, def, h)                               \
	{                                                                     \
		s, l, CLI_KIND_DURATION, CLI_OFF(type, field), "TIME", def, h \
	}
#define CLI_ENUM(s, l, type, field, vals, mv, def, h)                                 \
	{                                                                             \
		s, l, CLI_KIND_ENUM, CLI_OFF(type, field), mv, def, h, .values = vals \
	}
#define CLI_SELECT(s, l, type, field, kind, mv, h)                                              \
	{                                                                                       \
		s, l, CLI_KIND_SELECT, CLI_OFF(type, field), mv, "none", h, .select_kind = kind \
	}
#define CLI_LIST(s, l, type, field, mv, h)                               \
	{                                                                \
		s, l, CLI_KIND_LIST, CLI_OFF(type, field), mv, "none", h \
	}
#define CLI_PERCENT(s, l, type, field, def, lo, hi, h)                                            \
	{                                                                                         \
		s, l, CLI_KIND_PERCENT, CLI_OFF(type, field), "PCT", def, h, .min = lo, .max = hi \
	}
#define CLI_END   \
	{         \
		0 \
	}

struct cli_command {
	const char *name;
	const char *summary;  /* one line, for `sledtrace help` */
	const char *synopsis; /* after "usage: sledtrace NAME " */
	const char *about;    /* paragraphs for --help, may be NULL */
	const char *operand;  /* name of an operand in messages: "OBJECT" */
	const struct cli_option *options;
	int min_operands, max_operands; /* max < 0: unlimited */
	bool stop_at_operand;		/* the first operand and all after it are operands */
	/* Whole-command checks after parsing: 0, or one message in err
	 * (without the "sledtrace: CMD: " prefix). */
	int (*check)(void *settings, char *err, size_t errlen);
	int (*run)(void *settings, char **operands, int noperands);
	size_t settings_size;
	void (*init)(void *settings); /* defaults; NULL: all zero */
	void (*fini)(void *settings); /* frees what parsing allocated; may be NULL */
	const char *exit_status;      /* for --help when not the usual 0/1/2; may be NULL */
};

/* Parses argv (argv[0] is the command name) into settings, then runs the
 * command.  Returns the process exit status. */
int cli_main(const struct cli_command *cmd, int argc, char **argv);
struct select_args;
/* For a command's check(): every -F/-N regex compiles (a bad one is a
 * usage error, found before anything is opened). */
int cli_check_regexes(const struct select_args *sel, char *err, size_t errlen);
/* The same for a list of regexes such as --under's. */
int cli_check_under(const char *const *regexes, size_t n, char *err, size_t errlen);

/* The command's --help text, generated from its table. */
void cli_help(const struct cli_command *cmd, FILE *f);

#ifndef SLEDTRACE_VERSION_LINE /* meson passes the project's version */
#define SLEDTRACE_VERSION_LINE "sledtrace"
#endif

#endif
