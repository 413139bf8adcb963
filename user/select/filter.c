// SPDX-License-Identifier: MIT
/* filter.c: include/exclude regexes over function names, and the filter
 * file that `sledtrace filter` writes and `sledtrace record` reads.  The
 * dialect and the file format are described in filter.h. */
#include <ctype.h>
#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "select/filter.h"
#include "util/output_file.h"

/* Longer patterns skip the (quadratic) search for the error offset. */
#define ERROR_OFFSET_MAX_LEN 512

struct pattern {
	char *src;
	bool exclude;
	regex_t re;
};

/* Invariant: every pattern in v has a compiled re; nincludes counts those
 * with !exclude so matching knows whether "no includes" applies. */
struct filter {
	struct pattern *v;
	size_t n, cap;
	size_t nincludes;
};

struct filter *filter__new(void)
{
	return calloc(1, sizeof(struct filter));
}

void filter__free(struct filter *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->n; i++) {
		regfree(&f->v[i].re);
		free(f->v[i].src);
	}
	free(f->v);
	free(f);
}

/* Offset of the first byte that breaks regex: the length of its longest
 * prefix that still compiles.  Shorter prefixes may fail for unrelated
 * reasons ("a(" in "a(b)c(d"), so search down from the full length. */
static long error_offset(const char *regex)
{
	size_t len = strlen(regex);
	char *buf;
	long off = -1;

	if (len > ERROR_OFFSET_MAX_LEN || !(buf = strdup(regex)))
		return -1;
	for (size_t n = len; n-- > 0;) {
		regex_t re;

		buf[n] = '\0';
		if (!regcomp(&re, buf, REG_EXTENDED | REG_NOSUB)) {
			regfree(&re);
			off = (long)n;
			break;
		}
	}
	free(buf);
	return off;
}

static int regex_error(const char *regex, int code, const regex_t *re, char *err, size_t errlen)
{
	char why[128];
	long off = error_offset(regex);

	regerror(code, re, why, sizeof(why));
	if (off >= 0)
		snprintf(err, errlen, "bad regex '%s': %s at offset %ld ('%s')", regex, why, off,
			 regex + off);
	else
		snprintf(err, errlen, "bad regex '%s': %s", regex, why);
	return -EINVAL;
}

/* End of the bracket expression opening at s[0] == '[', or NULL. */
static const char *bracket_end(const char *s)
{
	const char *p = s + 1;

	if (*p == '^')
		p++;
	if (*p == ']')
		p++;
	for (; *p && *p != ']'; p++) {
		if (*p == '[' && (p[1] == ':' || p[1] == '.' || p[1] == '=')) {
			const char *close = strchr(p + 2, p[1]);

			while (close && close[1] != ']')
				close = strchr(close + 1, p[1]);
			if (!close)
				return NULL;
			p = close + 1;
		}
	}
	return *p ? p : NULL;
}

/* glibc reads "\d" as a plain 'd', so a Perl habit would silently match
 * the wrong names.  Only glibc's word and space escapes are letters that
 * mean something. */
static int check_escape(const char *regex, const char *p, char *err, size_t errlen)
{
	if (isalpha((unsigned char)p[1]) && !strchr("wWsSbB", p[1])) {
		snprintf(err, errlen,
			 "bad regex '%s': '\\%c' is not a POSIX extended regex escape "
			 "(use [0-9] for digits)",
			 regex, p[1]);
		return -EINVAL;
	}
	return 0;
}

/* glibc's regcomp copies the subtree of every repetition: stacked
 * quantifiers ("a++", "x{9}{9}") and large bounded repeats multiply its
 * memory (a 30-byte pattern took over 2 GB).  Names never need them. */
#define MAX_REPEAT 1000

static int check_repeat(const char *regex, const char *p, bool after_quantifier,
			unsigned long *product, char *err, size_t errlen)
{
	unsigned long bound = 2;

	if (after_quantifier) {
		snprintf(err, errlen,
			 "bad regex '%s': stacked repetition at offset %ld "
			 "(write one quantifier)",
			 regex, (long)(p - regex));
		return -EINVAL;
	}
	if (*p == '{') {
		const char *q = p + 1;

		bound = strtoul(q, (char **)&q, 10);
		if (*q == ',')
			bound = isdigit((unsigned char)q[1]) ? strtoul(q + 1, NULL, 10) : 2;
	}
	*product *= bound ? bound : 1;
	if (*product > MAX_REPEAT) {
		snprintf(err, errlen,
			 "bad regex '%s': repetition too large at offset %ld "
			 "(at most %d copies in all)",
			 regex, (long)(p - regex), MAX_REPEAT);
		return -EINVAL;
	}
	return 0;
}

static int check_syntax(const char *regex, char *err, size_t errlen)
{
	unsigned long product = 1;
	bool after_quantifier = false;

	for (const char *p = regex; *p; p++) {
		bool quantifier = false;
		int ret = 0;

		if (*p == '[') {
			const char *end = bracket_end(p);

			if (!end)
				return 0; /* regcomp reports it */
			p = end;
		} else if (*p == '\\' && p[1]) {
			ret = check_escape(regex, p, err, errlen);
			p++;
		} else if (strchr("*+?{", *p) && p != regex) {
			quantifier = true;
			ret = check_repeat(regex, p, after_quantifier, &product, err, errlen);
			if (*p == '{' && strchr(p, '}'))
				p = strchr(p, '}');
		}
		if (ret)
			return ret;
		after_quantifier = quantifier;
	}
	return 0;
}

int filter__add(struct filter *f, const char *regex, bool exclude, char *err, size_t errlen)
{
	struct pattern *p;
	int code;

	if (!*regex || strchr(regex, '\n')) {
		snprintf(err, errlen, "bad regex '%s': %s", regex,
			 *regex ? "contains a newline" : "empty (it would match everything)");
		return -EINVAL;
	}
	code = check_syntax(regex, err, errlen);
	if (code)
		return code;
	if (f->n == f->cap) {
		size_t cap = f->cap ? f->cap * 2 : 8;
		struct pattern *v = realloc(f->v, cap * sizeof(*v));

		if (!v)
			goto nomem;
		f->v = v;
		f->cap = cap;
	}
	p = &f->v[f->n];
	code = regcomp(&p->re, regex, REG_EXTENDED | REG_NOSUB);
	if (code)
		return regex_error(regex, code, &p->re, err, errlen);
	p->src = strdup(regex);
	if (!p->src) {
		regfree(&p->re);
		goto nomem;
	}
	p->exclude = exclude;
	f->n++;
	f->nincludes += !exclude;
	return 0;
nomem:
	snprintf(err, errlen, "out of memory adding regex '%s'", regex);
	return -ENOMEM;
}

int filter__add_exact(struct filter *f, const char *name, bool exclude, char *err, size_t errlen)
{
	size_t len = strlen(name);
	char *re = malloc(2 * len + 3);
	char *q = re;
	int ret;

	if (!re) {
		snprintf(err, errlen, "out of memory adding '%s'", name);
		return -ENOMEM;
	}
	*q++ = '^';
	for (const char *p = name; *p; p++) {
		if (strchr("^.[$()|*+?{\\", *p))
			*q++ = '\\';
		*q++ = *p;
	}
	*q++ = '$';
	*q = '\0';
	ret = filter__add(f, re, exclude, err, errlen);
	free(re);
	return ret;
}

static bool matches(const regex_t *re, const char *demangled, const char *mangled)
{
	return (demangled && !regexec(re, demangled, 0, NULL, 0)) ||
	       (mangled && !regexec(re, mangled, 0, NULL, 0));
}

bool filter__match(const struct filter *f, const char *demangled, const char *mangled)
{
	bool included = f->nincludes == 0;

	for (size_t i = 0; i < f->n; i++) {
		const struct pattern *p = &f->v[i];

		if (p->exclude) {
			if (matches(&p->re, demangled, mangled))
				return false;
		} else if (!included && matches(&p->re, demangled, mangled)) {
			included = true;
		}
	}
	return included;
}

size_t filter__count(const struct filter *f)
{
	return f->n;
}

const char *filter__pattern(const struct filter *f, size_t i, bool *exclude)
{
	if (i >= f->n)
		return NULL;
	if (exclude)
		*exclude = f->v[i].exclude;
	return f->v[i].src;
}

bool filter__has_includes(const struct filter *f)
{
	return f->nincludes > 0;
}

/* Filter files. */

struct file_header {
	char *object;
	char *build_id;
};

static char *trim(char *s)
{
	char *end = s + strlen(s);

	while (isspace((unsigned char)*s))
		s++;
	while (end > s && isspace((unsigned char)end[-1]))
		*--end = '\0';
	return s;
}

/* "# key: value" comments carry the header; others are plain comments. */
static int read_header(char *comment, struct file_header *h)
{
	char *body = trim(comment + 1);
	char **slot = NULL;

	if (!strncmp(body, "build-id:", 9))
		slot = &h->build_id;
	else if (!strncmp(body, "object:", 7))
		slot = &h->object;
	if (!slot)
		return 0;
	free(*slot);
	*slot = strdup(trim(strchr(body, ':') + 1));
	return *slot ? 0 : -ENOMEM;
}

static int load_line(struct filter *f, char *line, struct file_header *h, char *err, size_t errlen)
{
	bool exclude = false;

	line = trim(line);
	if (!*line)
		return 0;
	if (*line == '#') {
		if (read_header(line, h)) {
			snprintf(err, errlen, "out of memory");
			return -ENOMEM;
		}
		return 0;
	}
	if (*line == '!') {
		exclude = true;
		line = trim(line + 1);
		if (!*line) {
			snprintf(err, errlen, "'!' without a pattern after it");
			return -EINVAL;
		}
	}
	return filter__add(f, line, exclude, err, errlen);
}

static int load_lines(struct filter *f, FILE *fp, const char *path, struct file_header *h,
		      char *err, size_t errlen)
{
	char *line = NULL, why[4096];
	size_t cap = 0, lineno = 0;
	ssize_t n;
	int ret = 0;

	while (!ret && (n = getline(&line, &cap, fp)) >= 0) {
		lineno++;
		if (strlen(line) != (size_t)n) {
			snprintf(why, sizeof(why), "contains a NUL byte");
			ret = -EINVAL;
		} else {
			ret = load_line(f, line, h, why, sizeof(why));
		}
		if (ret)
			snprintf(err, errlen, "%s:%zu: %s", path, lineno, why);
	}
	free(line);
	if (!ret && ferror(fp)) {
		ret = -EIO;
		snprintf(err, errlen, "cannot read filter file '%s': %s", path, strerror(EIO));
	}
	return ret;
}

static const char *file_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* A file written for another object (a run that traces an executable and
 * its libraries applies one filter to all of them) is not stale for this
 * one: only the object of the same file name can have been rebuilt. */
static int check_build_id(const struct file_header *h, const char *path, const char *object,
			  const char *expect, char *err, size_t errlen)
{
	if (!expect || !*expect || !h->build_id || !*h->build_id ||
	    !strcasecmp(expect, h->build_id))
		return 0;
	if (object && h->object && strcmp(file_name(object), file_name(h->object)))
		return 0;
	snprintf(err, errlen,
		 "filter file '%s' is stale: it was written for build-id %s (%s) but the object "
		 "has build-id %s; regenerate it with 'sledtrace filter'",
		 path, h->build_id, h->object ? h->object : "object unknown", expect);
	return -ESTALE;
}

int filter__load_file(struct filter *f, const char *path, const char *expect_object,
		      const char *expect_build_id, char *err, size_t errlen)
{
	struct file_header h = { 0 };
	FILE *fp = fopen(path, "r");
	int ret;

	if (!fp) {
		ret = -errno;
		snprintf(err, errlen, "cannot open filter file '%s': %s", path, strerror(-ret));
		return ret;
	}
	ret = load_lines(f, fp, path, &h, err, errlen);
	fclose(fp);
	if (!ret)
		ret = check_build_id(&h, path, expect_object, expect_build_id, err, errlen);
	free(h.object);
	free(h.build_id);
	return ret;
}

/* The loader trims lines and reads a leading '#' or '!' as syntax, so such
 * bytes at the edges are written as one-byte bracket expressions.  An
 * escaped trailing blank ("\ ") becomes "[ ]" as a whole. */
static void write_pattern(FILE *fp, const char *src, bool exclude)
{
	size_t len = strlen(src);
	size_t start = 0, end = len;
	bool open_first = strchr("#!", src[0]) || isspace((unsigned char)src[0]);
	bool close_last = false;
	size_t slashes = 0;

	if (exclude)
		fputc('!', fp);
	if (open_first) {
		fprintf(fp, "[%c]", src[0]);
		start = 1;
	}
	if (len > start && isspace((unsigned char)src[len - 1])) {
		close_last = true;
		end = len - 1;
		while (slashes < end - start && src[end - 1 - slashes] == '\\')
			slashes++;
		end -= slashes % 2;
	}
	fwrite(src + start, 1, end - start, fp);
	if (close_last)
		fprintf(fp, "[%c]", src[len - 1]);
	fputc('\n', fp);
}

static void write_contents(FILE *fp, const struct filter *f, const char *object_path,
			   const char *build_id)
{
	fprintf(fp,
		"# sledtrace filter: one POSIX extended regex per line, matched against\n"
		"# demangled and mangled function names; '!' excludes; excludes win.\n");
	if (object_path && *object_path)
		fprintf(fp, "# object: %s\n", object_path);
	if (build_id && *build_id)
		fprintf(fp, "# build-id: %s\n", build_id);
	for (size_t i = 0; i < f->n; i++)
		write_pattern(fp, f->v[i].src, f->v[i].exclude);
}

static bool one_line(const char *s)
{
	return !s || !strchr(s, '\n');
}

int filter__write(const struct filter *f, FILE *fp, const char *object_path, const char *build_id)
{
	if (!one_line(object_path) || !one_line(build_id))
		return -EINVAL;
	write_contents(fp, f, object_path, build_id);
	return ferror(fp) ? -EIO : 0;
}

struct filter_job {
	const struct filter *f;
	const char *object_path, *build_id;
};

static int write_job(FILE *fp, void *ctx)
{
	const struct filter_job *job = ctx;

	return filter__write(job->f, fp, job->object_path, job->build_id);
}

int filter__write_file(const struct filter *f, const char *path, const char *object_path,
		       const char *build_id, char *err, size_t errlen)
{
	struct filter_job job = { f, object_path, build_id };
	char why[512];
	int ret;

	if (!one_line(object_path) || !one_line(build_id)) {
		snprintf(err, errlen, "cannot write filter file '%s': object path has a newline",
			 path);
		return -EINVAL;
	}
	ret = output_file__write_stream(path, write_job, &job, why, sizeof(why));
	if (ret)
		snprintf(err, errlen, "cannot write filter file '%s': %s", path, why);
	return ret;
}
