// SPDX-License-Identifier: MIT
/* options.c: see options.h.  A hand-written parser rather than getopt_long:
 * getopt permutes argv (record's COMMAND must stay untouched), accepts
 * abbreviations and prints its own messages, none of which we want. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/options.h"
#include "cli/values.h"
#include "select/filter.h"
#include "select/select.h"

struct parse {
	const struct cli_command *cmd;
	void *set;
	char **operands;
	int noperands;
	char err[1024];
};

enum { PARSED = 0, HELP_SHOWN = 1, BAD_USAGE = -1 };

static void *field(struct parse *p, const struct cli_option *o)
{
	return (char *)p->set + o->offset;
}

static int list_push(struct cli_list *l, const char *arg)
{
	const char **v = realloc(l->v, (l->n + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	v[l->n++] = arg;
	l->v = v;
	return 0;
}

/* Stores arg (NULL for options without a value); -EINVAL with p->err. */
static int apply(struct parse *p, const struct cli_option *o, const char *arg)
{
	char why[512] = "";
	uint64_t v = 0;
	int ret = 0, e;

	switch (o->kind) {
	case CLI_KIND_FLAG:
		*(bool *)field(p, o) = true;
		return 0;
	case CLI_KIND_COUNT:
		++*(int *)field(p, o);
		return 0;
	case CLI_KIND_STRING:
		*(const char **)field(p, o) = arg;
		return 0;
	case CLI_KIND_UINT:
		ret = cli_parse_uint(arg, o->min, o->max, &v, why, sizeof(why));
		if (!ret)
			*(uint32_t *)field(p, o) = (uint32_t)v;
		break;
	case CLI_KIND_SIZE:
		ret = cli_parse_size(arg, o->min, o->max, o->pow2, field(p, o), why, sizeof(why));
		break;
	case CLI_KIND_DURATION:
		ret = cli_parse_duration(arg, field(p, o), why, sizeof(why));
		break;
	case CLI_KIND_ENUM:
		ret = cli_parse_enum(arg, o->values, &e, why, sizeof(why));
		if (!ret)
			*(int *)field(p, o) = e;
		break;
	case CLI_KIND_SELECT:
		ret = select_args__add(field(p, o), o->select_kind, arg);
		if (ret)
			snprintf(why, sizeof(why),
				 "too many -F/-N/--filter-file options (at most 64)");
		break;
	case CLI_KIND_PERCENT:
		ret = cli_parse_percent(arg, (double)o->min, (double)o->max, field(p, o), why,
					sizeof(why));
		break;
	case CLI_KIND_LIST:
		ret = list_push(field(p, o), arg);
		if (ret)
			snprintf(why, sizeof(why), "out of memory");
		break;
	}
	if (ret)
		snprintf(p->err, sizeof(p->err), "--%s: %s", o->name, why);
	return ret;
}

static bool takes_value(const struct cli_option *o)
{
	return o->kind != CLI_KIND_FLAG && o->kind != CLI_KIND_COUNT;
}

static const struct cli_option *find_long(const struct cli_command *cmd, const char *name,
					  size_t len)
{
	for (const struct cli_option *o = cmd->options; o->name; o++)
		if (strlen(o->name) == len && !strncmp(o->name, name, len))
			return o;
	return NULL;
}

static const struct cli_option *find_short(const struct cli_command *cmd, char c)
{
	for (const struct cli_option *o = cmd->options; o->name; o++)
		if (o->short_name == c)
			return o;
	return NULL;
}

static int builtin(struct parse *p, const char *name)
{
	if (!strcmp(name, "help")) {
		cli_help(p->cmd, stdout);
		return HELP_SHOWN;
	}
	printf("%s\n", SLEDTRACE_VERSION_LINE);
	return HELP_SHOWN;
}

/* "--name", "--name=V" or "--name V"; *i is advanced past what is used. */
static int parse_long(struct parse *p, int argc, char **argv, int *i)
{
	const char *name = argv[*i] + 2, *eq = strchr(name, '=');
	size_t len = eq ? (size_t)(eq - name) : strlen(name);
	const struct cli_option *o = find_long(p->cmd, name, len);

	if (!o && !eq && (!strcmp(name, "help") || !strcmp(name, "version")))
		return builtin(p, name);
	if (!o) {
		snprintf(p->err, sizeof(p->err), "unknown option '--%.*s'", (int)len, name);
		return BAD_USAGE;
	}
	if (!takes_value(o) && eq) {
		snprintf(p->err, sizeof(p->err), "--%s takes no value", o->name);
		return BAD_USAGE;
	}
	if (!takes_value(o))
		return apply(p, o, NULL) ? BAD_USAGE : PARSED;
	if (!eq && *i + 1 >= argc) {
		snprintf(p->err, sizeof(p->err), "--%s needs a value (%s)", o->name, o->metavar);
		return BAD_USAGE;
	}
	return apply(p, o, eq ? eq + 1 : argv[++*i]) ? BAD_USAGE : PARSED;
}

/* "-x", "-xV", "-x V", "-qv". */
static int parse_short(struct parse *p, int argc, char **argv, int *i)
{
	for (const char *c = argv[*i] + 1; *c; c++) {
		const struct cli_option *o = find_short(p->cmd, *c);

		if (!o && *c == 'h')
			return builtin(p, "help");
		if (!o) {
			snprintf(p->err, sizeof(p->err), "unknown option '-%c'", *c);
			return BAD_USAGE;
		}
		if (!takes_value(o)) {
			if (apply(p, o, NULL))
				return BAD_USAGE;
			continue;
		}
		if (!c[1] && *i + 1 >= argc) {
			snprintf(p->err, sizeof(p->err), "-%c needs a value (%s)", *c, o->metavar);
			return BAD_USAGE;
		}
		return apply(p, o, c[1] ? c + 1 : argv[++*i]) ? BAD_USAGE : PARSED;
	}
	return PARSED;
}

static int parse_argv(struct parse *p, int argc, char **argv)
{
	bool options_done = false;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		int ret;

		if (options_done || a[0] != '-' || !a[1]) {
			p->operands[p->noperands++] = argv[i];
			options_done = p->cmd->stop_at_operand;
			continue;
		}
		if (!strcmp(a, "--")) {
			options_done = true;
			continue;
		}
		ret = a[1] == '-' ? parse_long(p, argc, argv, &i) : parse_short(p, argc, argv, &i);
		if (ret != PARSED)
			return ret;
	}
	return PARSED;
}

static int check_operands(struct parse *p)
{
	const struct cli_command *c = p->cmd;

	if (p->noperands < c->min_operands)
		snprintf(p->err, sizeof(p->err), "missing %s", c->operand);
	else if (c->max_operands >= 0 && p->noperands > c->max_operands)
		snprintf(p->err, sizeof(p->err), "expected %s%s, got another operand '%s'",
			 c->max_operands == 1 ? "one " : "", c->operand,
			 p->operands[c->max_operands]);
	else if (c->check)
		return c->check(p->set, p->err, sizeof(p->err)) ? BAD_USAGE : PARSED;
	else
		return PARSED;
	return BAD_USAGE;
}

static void free_lists(const struct cli_command *cmd, void *set)
{
	for (const struct cli_option *o = cmd->options; o->name; o++)
		if (o->kind == CLI_KIND_LIST)
			free(((struct cli_list *)((char *)set + o->offset))->v);
}

int cli_main(const struct cli_command *cmd, int argc, char **argv)
{
	struct parse p = { .cmd = cmd };
	int ret;

	p.set = calloc(1, cmd->settings_size);
	p.operands = calloc((size_t)argc + 1, sizeof(*p.operands));
	if (!p.set || !p.operands) {
		fprintf(stderr, "sledtrace: out of memory\n");
		free(p.set);
		free(p.operands);
		return EXIT_FAILURE_RUN;
	}
	if (cmd->init)
		cmd->init(p.set);
	ret = parse_argv(&p, argc, argv);
	if (ret == PARSED)
		ret = check_operands(&p);
	if (ret == BAD_USAGE)
		fprintf(stderr, "sledtrace: %s: %s (see 'sledtrace %s --help')\n", cmd->name, p.err,
			cmd->name);
	if (ret == PARSED)
		ret = cmd->run(p.set, p.operands, p.noperands);
	else
		ret = ret == HELP_SHOWN ? EXIT_OK : EXIT_USAGE;
	free_lists(cmd, p.set);
	free(p.set);
	free(p.operands);
	return ret;
}

/* Compiles one regex of option label into f; err says why it does not
 * (f NULL: it could not be allocated). */
static int check_regex(struct filter *f, const char *label, const char *regex, char *err,
		       size_t errlen)
{
	char why[768];
	int ret = f ? filter__add(f, regex, false, why, sizeof(why)) : -ENOMEM;

	if (ret == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	else if (ret)
		snprintf(err, errlen, "%s: %s", label, why);
	return ret;
}

int cli_check_under(const char *const *regexes, size_t n, char *err, size_t errlen)
{
	struct filter *f = filter__new();
	int ret = f ? 0 : check_regex(NULL, "--under", NULL, err, errlen);

	for (size_t i = 0; !ret && i < n; i++)
		ret = check_regex(f, "--under", regexes[i], err, errlen);
	filter__free(f);
	return ret;
}

int cli_check_regexes(const struct select_args *sel, char *err, size_t errlen)
{
	struct filter *f = filter__new();
	int ret = f ? 0 : check_regex(NULL, "-F", NULL, err, errlen);

	for (size_t i = 0; !ret && i < sel->n; i++) {
		char label[3] = { '-', sel->items[i].kind, 0 };

		if (sel->items[i].kind != 'f')
			ret = check_regex(f, label, sel->items[i].arg, err, errlen);
	}
	filter__free(f);
	return ret;
}
