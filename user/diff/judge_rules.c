// SPDX-License-Identifier: MIT
/* judge_rules.c: parses and evaluates the `--fail-on` rules of
 * `sledtrace diff` (grammar in judge_rules.h). */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff/judge_rules.h"

enum rule_op { OP_GT, OP_GE, OP_LT, OP_LE };

struct diff_rule {
	char *text;
	int metric; /* enum diff_metric, or DIFF_NMETRICS + an edge metric */
	enum rule_op op;
	double threshold; /* percent, a count, or ns */
	bool percent;
	bool has_re;
	regex_t re;
};

static int bad(char *err, size_t errlen, const char *text, const char *why)
{
	snprintf(err, errlen, "bad rule '%s': %s (form: METRIC OP THRESHOLD[%%][:REGEX])", text,
		 why);
	return -EINVAL;
}

static const char *skip_blank(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

static const char *parse_metric(const char *p, struct diff_rule *r)
{
	for (int m = 0; m < DIFF_NRULE_METRICS; m++) {
		const char *name = diff_metric__name(m);
		size_t n = strlen(name);

		if (!strncmp(p, name, n) && !isalnum((unsigned char)p[n]) && p[n] != '-') {
			r->metric = m;
			return p + n;
		}
	}
	return NULL;
}

static bool counts(const struct diff_rule *r)
{
	return diff_metric__is_edge(r->metric) || diff_metrics[r->metric].kind == DIFF_KIND_COUNT;
}

static const char *parse_op(const char *p, struct diff_rule *r)
{
	if (*p != '<' && *p != '>')
		return NULL;
	r->op = *p == '>' ? OP_GT : OP_LT;
	if (p[1] == '=') {
		r->op = r->op == OP_GT ? OP_GE : OP_LE;
		return p + 2;
	}
	return p + 1;
}

/* The threshold is the text up to ':' (or the end), blanks trimmed. */
static int parse_threshold(const char *s, size_t n, diff_duration_parser parse_duration,
			   struct diff_rule *r, const char **why)
{
	char buf[64], *end, ignored[256];
	uint64_t ns;

	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	if (!n || n >= sizeof(buf))
		return *why = "missing or overlong threshold", -EINVAL;
	memcpy(buf, s, n);
	buf[n] = '\0';
	if (buf[n - 1] == '%') {
		buf[n - 1] = '\0';
		r->percent = true;
		errno = 0;
		r->threshold = strtod(buf, &end);
		if (errno || end == buf || *end || !isfinite(r->threshold))
			return *why = "threshold is not a number before %", -EINVAL;
		return 0;
	}
	if (counts(r)) {
		errno = 0;
		r->threshold = strtod(buf, &end);
		if (errno || end == buf || *end || !isfinite(r->threshold))
			return *why = "a count threshold is a number or a percentage", -EINVAL;
		return 0;
	}
	if (parse_duration(buf + (buf[0] == '-' || buf[0] == '+'), &ns, ignored, sizeof(ignored)))
		return *why = "a time threshold is a duration with its unit (500us, 2ms) or a %",
		       -EINVAL;
	r->threshold = buf[0] == '-' ? -(double)ns : (double)ns;
	return 0;
}

static int parse_regex(const char *s, struct diff_rule *r, const char **why)
{
	if (!*s)
		return *why = "empty regex after ':'", -EINVAL;
	if (regcomp(&r->re, s, REG_EXTENDED | REG_NOSUB))
		return *why = "invalid regex after ':'", -EINVAL;
	r->has_re = true;
	return 0;
}

static int parse_into(const char *text, diff_duration_parser parse_duration, struct diff_rule *r,
		      const char **why)
{
	const char *p = skip_blank(text), *colon;

	if (!(p = parse_metric(p, r)))
		return *why = "unknown metric (calls, total, self, avg, cpu, cpu-self, allocs, "
			      "alloc-bytes, syscalls, page-faults, edge-calls, edge-allocs, "
			      "edge-alloc-bytes, edge-syscalls or edge-page-faults)",
		       -EINVAL;
	if (!(p = parse_op(skip_blank(p), r)))
		return *why = "expected an operator (>, >=, < or <=)", -EINVAL;
	p = skip_blank(p);
	colon = strchr(p, ':');
	if (parse_threshold(p, colon ? (size_t)(colon - p) : strlen(p), parse_duration, r, why))
		return -EINVAL;
	return colon ? parse_regex(colon + 1, r, why) : 0;
}

int diff_rule__parse(const char *text, diff_duration_parser parse_duration, struct diff_rule **out,
		     char *err, size_t errlen)
{
	struct diff_rule *r = calloc(1, sizeof(*r));
	const char *why = NULL;

	if (!r || !(r->text = strdup(text))) {
		free(r);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	if (parse_into(text, parse_duration, r, &why)) {
		bad(err, errlen, text, why);
		diff_rule__free(r);
		return -EINVAL;
	}
	*out = r;
	return 0;
}

void diff_rule__free(struct diff_rule *r)
{
	if (!r)
		return;
	if (r->has_re)
		regfree(&r->re);
	free(r->text);
	free(r);
}

const char *diff_rule__text(const struct diff_rule *r)
{
	return r->text;
}

int diff_rule__metric(const struct diff_rule *r)
{
	return r->metric;
}

static bool compare(enum rule_op op, double v, double t)
{
	switch (op) {
	case OP_GT:
		return v > t;
	case OP_GE:
		return v >= t;
	case OP_LT:
		return v < t;
	case OP_LE:
		return v <= t;
	}
	return false;
}

bool diff_rule__upward(const struct diff_rule *r)
{
	return r->op == OP_GT || r->op == OP_GE;
}

bool diff_rule__matches(const struct diff_rule *r, const char *name)
{
	return !r->has_re || !regexec(&r->re, name, 0, NULL, 0);
}

bool diff_rule__passes(const struct diff_rule *r, double change, double change_pct)
{
	double v = r->percent ? change_pct : change;

	return !isnan(v) && compare(r->op, v, r->threshold);
}

double diff_rule__threshold_ratio(const struct diff_rule *r, double base)
{
	double ratio = r->percent ? 1 + r->threshold / 100 : 1 + r->threshold / base;

	return ratio > 0 && isfinite(ratio) ? ratio : NAN;
}
