// SPDX-License-Identifier: MIT
/* help.c: a command's --help, generated from its option table so that the
 * help, the parser and (through tests/check_cli_docs.py) the man page and
 * the shell completion cannot drift apart. */
#include <stdio.h>
#include <string.h>

#include "cli/options.h"

#define HELP_COLUMN 26
#define HELP_WIDTH 79

/* Prints text from column col (the cursor is there), wrapped at words. */
static void wrapped(FILE *f, const char *text, int col)
{
	int at = col;

	while (*text) {
		size_t word = strcspn(text, " ");

		if (at > col && at + 1 + (int)word > HELP_WIDTH) {
			fprintf(f, "\n%*s", col, "");
			at = col;
		} else if (at > col) {
			fputc(' ', f);
			at++;
		}
		fprintf(f, "%.*s", (int)word, text);
		at += (int)word;
		text += word;
		text += strspn(text, " ");
	}
	fputc('\n', f);
}

static bool takes_value(const struct cli_option *o)
{
	return o->kind != CLI_KIND_FLAG && o->kind != CLI_KIND_COUNT;
}

static void option_line(FILE *f, const struct cli_option *o)
{
	char left[128], text[1024];
	int n;

	n = snprintf(left, sizeof(left), "  %c%c%s--%s", o->short_name ? '-' : ' ',
		     o->short_name ? o->short_name : ' ', o->short_name ? ", " : "  ", o->name);
	if (o->metavar && n > 0 && (size_t)n < sizeof(left))
		snprintf(left + n, sizeof(left) - (size_t)n, "=%s", o->metavar);
	n = snprintf(text, sizeof(text), "%s", o->help);
	if (o->kind == CLI_KIND_SELECT || o->kind == CLI_KIND_LIST || o->kind == CLI_KIND_COUNT)
		n += snprintf(text + n, sizeof(text) - (size_t)n, "; repeatable");
	for (int i = 0; o->values && o->values[i]; i++)
		n += snprintf(text + n, sizeof(text) - (size_t)n, "%s%s",
			      i ? ", " : " (one of: ", o->values[i]);
	if (o->def || !takes_value(o))
		snprintf(text + n, sizeof(text) - (size_t)n, "%sdefault: %s)",
			 o->values ? "; " : " (", o->def ? o->def : "off");
	else if (o->values)
		snprintf(text + n, sizeof(text) - (size_t)n, ")");
	if (strlen(left) + 1 >= HELP_COLUMN)
		fprintf(f, "%s\n%*s", left, HELP_COLUMN, "");
	else
		fprintf(f, "%-*s", HELP_COLUMN, left);
	wrapped(f, text, HELP_COLUMN);
}

void cli_help(const struct cli_command *cmd, FILE *f)
{
	fprintf(f, "usage: sledtrace %s %s\n\n", cmd->name, cmd->synopsis);
	for (const char *p = cmd->about ? cmd->about : cmd->summary; *p;) {
		size_t len = strcspn(p, "\n");
		char para[2048];

		snprintf(para, sizeof(para), "%.*s", (int)len, p);
		wrapped(f, para, 0);
		p += len + (p[len] == '\n');
	}
	fprintf(f, "\noptions:\n");
	for (const struct cli_option *o = cmd->options; o->name; o++)
		option_line(f, o);
	fprintf(f, "%-*s%s\n", HELP_COLUMN, "  -h, --help", "show this help and exit");
	fprintf(f, "%-*s%s\n", HELP_COLUMN, "      --version", "print the version and exit");
	if (cmd->exit_status)
		fprintf(f, "\nExit status: %s.\n", cmd->exit_status);
	else
		fprintf(f, "\nExit status: 0 success, 1 runtime failure, 2 usage error%s.\n",
			strcmp(cmd->name, "record") ? "" : "; otherwise COMMAND's own status");
}
