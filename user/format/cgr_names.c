// SPDX-License-Identifier: MIT
/* cgr_names.c: see cgr_names.h.  Names are split at "::" only at bracket
 * depth zero - '<' '(' '[' '{' open, their partners close - so a trait
 * qualification <A as B> or a template argument list stays one segment.
 * C++ operators are the exception: their punctuation is not brackets. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "format/cgr_names.h"

enum cgr_lang cgr_names__lang(const char *file)
{
	const char *dot = file ? strrchr(file, '.') : NULL;

	if (dot && !strcmp(dot, ".rs"))
		return CGR_RUST;
	if (dot && !strcmp(dot, ".c"))
		return CGR_C;
	return CGR_CPP;
}

static void copy(char *out, size_t outlen, const char *s, size_t n)
{
	if (!outlen)
		return;
	n = n < outlen - 1 ? n : outlen - 1;
	memcpy(out, s, n);
	out[n] = '\0';
}

static int depth_step(char c)
{
	return c == '<' || c == '(' || c == '[' || c == '{'   ? 1
	       : c == '>' || c == ')' || c == ']' || c == '}' ? -1
							      : 0;
}

/* Start of the last depth-0 "::" segment of s[0..n) that is not a
 * turbofish (::<...>); sets *seg_len. */
static const char *rust_last_segment(const char *s, size_t n, size_t *seg_len)
{
	const char *seg = s, *prev = s;
	size_t prev_len = n;
	int d = 0;

	for (size_t i = 0; i < n; i++) {
		d += depth_step(s[i]);
		if (!d && s[i] == ':' && i + 1 < n && s[i + 1] == ':') {
			prev = seg;
			prev_len = (size_t)(s + i - seg);
			seg = s + i + 2;
			i++;
		}
	}
	*seg_len = (size_t)(s + n - seg);
	if (*seg_len && seg[0] == '<' && seg != s) { /* f::<u32>: the turbofish is no name */
		*seg_len = prev_len;
		return prev;
	}
	return seg;
}

static bool is_hex16_hash(const char *h)
{
	if (h[0] != 'h' || strlen(h) != 17)
		return false;
	for (int i = 1; i < 17; i++)
		if (!isxdigit((unsigned char)h[i]))
			return false;
	return true;
}

/* Drops a trailing generic argument list: drop_in_place<T> -> drop_in_place,
 * max_of<int> -> max_of (one name for every instantiation). */
static size_t strip_args(const char *seg, size_t n)
{
	int d = 0;

	if (!n || seg[n - 1] != '>')
		return n;
	for (size_t i = n; i-- > 0;) {
		d += depth_step(seg[i]);
		if (!d)
			return i;
	}
	return n;
}

static bool rust_bare(const char *s, char *out, size_t outlen)
{
	size_t n = strlen(s), len;
	const char *seg;

	if (n > 19 && !strncmp(s + n - 19, "::", 2) && is_hex16_hash(s + n - 17))
		n -= 19; /* legacy mangling's ::h<16 hex> */
	seg = rust_last_segment(s, n, &len);
	if (len && seg[0] != '<')
		len = strip_args(seg, len);
	copy(out, outlen, seg, len);
	return len && seg[0] == '{'; /* {{closure}}, {closure#0}, {shim:...} */
}

/* ---- C++ ---- */

static bool word_at(const char *s, size_t i, const char *w)
{
	size_t n = strlen(w);

	return !strncmp(s + i, w, n) &&
	       (i == 0 || !(isalnum((unsigned char)s[i - 1]) || s[i - 1] == '_')) &&
	       !(isalnum((unsigned char)s[i + n]) || s[i + n] == '_');
}

/* Length of the operator name starting at s[i] ("operator<<", "operator()",
 * "operator new[]", "operator int"). */
static size_t operator_len(const char *s, size_t i)
{
	size_t j = i + 8;

	if (!strncmp(s + j, "()", 2))
		return j + 2 - i;
	if (s[j] == ' ')
		j++;
	if (strchr("<>=!+-*/%^&|~[],", s[j]) && s[j]) {
		while (s[j] && strchr("<>=!+-*/%^&|~[],", s[j]))
			j++;
		return j - i;
	}
	while (s[j] && s[j] != '(') /* new, delete, conversions */
		j++;
	while (j > i && s[j - 1] == ' ')
		j--;
	return j - i;
}

/* Length of the name part: up to the parameter list at depth zero. */
static size_t cpp_name_len(const char *s, size_t *op_at)
{
	int d = 0;

	*op_at = (size_t)-1;
	for (size_t i = 0; s[i]; i++) {
		if (word_at(s, i, "operator")) {
			*op_at = i;
			i += operator_len(s, i) - 1;
			continue;
		}
		if (!d && s[i] == '(')
			return i;
		d += depth_step(s[i]);
	}
	return strlen(s);
}

/* A depth-0 scope of the name is a lambda: GCC's {lambda(int)#1},
 * clang's $_0 (inside template arguments it is only a parameter type). */
static bool cpp_anonymous(const char *s, size_t n)
{
	int d = 0;

	for (size_t i = 0; i < n; i++) {
		bool seg = i == 0 || (i >= 2 && s[i - 1] == ':' && s[i - 2] == ':');

		if (!d && seg &&
		    (!strncmp(s + i, "$_", 2) || !strncmp(s + i, "{lambda(", 8) ||
		     !strncmp(s + i, "{unnamed type", 13)))
			return true;
		d += depth_step(s[i]);
	}
	return false;
}

/* "(anonymous namespace)::" qualifies like any namespace: drop it. */
static void strip_anon(const char *name, char *buf, size_t len)
{
	static const char tok[] = "(anonymous namespace)::";
	const char *p = name, *q;
	size_t k = 0;

	buf[0] = '\0';
	while ((q = strstr(p, tok)) && k < len) {
		int w = snprintf(buf + k, len - k, "%.*s", (int)(q - p), p);

		k += w > 0 ? (size_t)w : 0;
		p = q + sizeof(tok) - 1;
	}
	if (k < len)
		snprintf(buf + k, len - k, "%s", p);
}

static bool cpp_bare(const char *name, char *out, size_t outlen)
{
	char buf[1024];
	const char *s = buf, *seg;
	size_t n, op, i;
	int d = 0;

	strip_anon(name, buf, sizeof(buf));
	n = cpp_name_len(s, &op);
	if (cpp_anonymous(s, n)) {
		copy(out, outlen, "lambda", 6);
		return true;
	}
	if (op != (size_t)-1 && op < n) {
		copy(out, outlen, s + op, operator_len(s, op));
		return false;
	}
	seg = s;
	for (i = 0; i < n; i++) { /* last depth-0 "::" or space (after a return type) */
		d += depth_step(s[i]);
		if (!d && s[i] == ':' && s[i + 1] == ':')
			seg = s + i + 2, i++;
		else if (!d && s[i] == ' ')
			seg = s + i + 1;
	}
	n = strip_args(seg, (size_t)(s + n - seg));
	copy(out, outlen, seg, n);
	return false;
}

bool cgr_names__bare(enum cgr_lang lang, const char *demangled, char *out, size_t outlen)
{
	if (lang == CGR_RUST)
		return rust_bare(demangled, out, outlen);
	return cpp_bare(demangled, out, outlen);
}
