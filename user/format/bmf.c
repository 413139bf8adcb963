// SPDX-License-Identifier: MIT
/* bmf.c: see bmf.h.  Rows are collected, then sorted by their final name
 * and merged, because only the final name (address dropped, elided,
 * qualified by thread) says which rows Bencher would take for one: a JSON
 * object with a name twice would keep one of them silently. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "format/bmf.h"

const char *const bmf_measure_slugs[BMF_NMEASURES] = {
	[BMF_CALLS] = "calls",
	[BMF_TOTAL_TIME] = "total-time",
	[BMF_SELF_TIME] = "self-time",
	[BMF_CPU_TOTAL] = "cpu-total-time",
	[BMF_CPU_SELF] = "cpu-self-time",
	[BMF_ALLOCS] = "allocs",
	[BMF_ALLOC_BYTES] = "alloc-bytes",
	[BMF_SYSCALLS] = "syscalls",
	[BMF_PAGE_FAULTS] = "page-faults",
};

enum { VAL, LO, HI };

struct bmf_row {
	char *name;
	double v[BMF_NMEASURES][3];
	unsigned has, ranged; /* bit m: measure m is set, with bounds */
};

_Static_assert(BMF_NMEASURES <= 32, "has and ranged are bit sets");

size_t bmf__stable_len(const char *name)
{
	const char *at = strrchr(name, '@');

	if (!at || strncmp(at, "@0x", 3) || !at[3] ||
	    strspn(at + 3, "0123456789abcdef") != strlen(at + 3))
		return strlen(name);
	return (size_t)(at - name);
}

/* The length of the valid UTF-8 sequence at s (at most n bytes), 0 when
 * there is none: overlong forms, surrogates and values past U+10FFFF are
 * not valid, and Bencher's JSON reader refuses them. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t len = 0;

	if (s[0] < 0x80)
		len = 1;
	else if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4;
	if (!len || len > n)
		return 0;
	for (size_t i = 1; i < len; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] > 0x9f) ||
	    (s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] > 0x8f))
		return 0;
	return len;
}

/* Appends s[0..n) to out (room for 3 x n more bytes), each byte that
 * starts no valid UTF-8 sequence as U+FFFD. */
static size_t put_utf8(char *out, const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t o = 0;

	for (size_t i = 0; i < n;) {
		size_t len = utf8_len(u + i, n - i);

		if (!len) {
			memcpy(out + o, "\xef\xbf\xbd", 3);
			o += 3;
			i++;
			continue;
		}
		memcpy(out + o, s + i, len);
		o += len;
		i += len;
	}
	return o;
}

/* FNV-1a: a short hash that tells elided names apart. */
static uint32_t hash32(const char *s, size_t n)
{
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return h;
}

/* A UTF-8 sequence starts at s[i] (not a continuation byte). */
static bool starts_char(const char *s, size_t i)
{
	return ((unsigned char)s[i] & 0xc0) != 0x80;
}

/* s (valid UTF-8, len bytes) in at most BMF_NAME_MAX bytes: as it is, or
 * its head and tail around "...<hash of s>...", cut between characters. */
static void elide(char *s, size_t len)
{
	char mid[32];
	size_t head, tail, nmid;

	if (len <= BMF_NAME_MAX)
		return;
	nmid = (size_t)snprintf(mid, sizeof(mid), "...%08x...", hash32(s, len));
	head = (BMF_NAME_MAX - nmid) / 2;
	tail = BMF_NAME_MAX - nmid - head;
	while (head && !starts_char(s, head))
		head--;
	while (tail && !starts_char(s, len - tail))
		tail--;
	memmove(s + head + nmid, s + len - tail, tail);
	memcpy(s + head, mid, nmid);
	s[head + nmid + tail] = '\0';
}

long bmf__row(struct bmf *b, const char *name, const char *object, const char *group)
{
	size_t n = bmf__stable_len(name), no = object ? strlen(object) : 0,
	       ng = group ? strlen(group) : 0, o;
	struct bmf_row *r;
	char *s;

	if (b->nrows == b->cap) {
		size_t cap = b->cap ? 2 * b->cap : 64;

		if (!(r = realloc(b->rows, cap * sizeof(*r))))
			return -1;
		b->rows = r;
		b->cap = cap;
	}
	if (!(s = malloc(3 * (n + no + ng) + 8)))
		return -1;
	o = put_utf8(s, name, n);
	if (object) {
		memcpy(s + o, " (", 2);
		o += 2 + put_utf8(s + o + 2, object, no);
		s[o++] = ')';
	}
	if (group) {
		s[o++] = '@';
		o += put_utf8(s + o, group, ng);
	}
	s[o] = '\0';
	elide(s, o);
	r = &b->rows[b->nrows];
	memset(r, 0, sizeof(*r));
	r->name = s;
	return (long)b->nrows++;
}

void bmf__set(struct bmf *b, long i, enum bmf_measure m, double value)
{
	struct bmf_row *r = &b->rows[i];

	if (!isfinite(value))
		return;
	r->v[m][VAL] = r->v[m][LO] = r->v[m][HI] = value;
	r->has |= 1u << m;
	r->ranged &= ~(1u << m);
}

void bmf__set_range(struct bmf *b, long i, enum bmf_measure m, double value, double lo, double hi)
{
	struct bmf_row *r = &b->rows[i];

	if (!isfinite(value) || !isfinite(lo) || !isfinite(hi))
		return;
	bmf__set(b, i, m, value);
	r->v[m][LO] = lo;
	r->v[m][HI] = hi;
	r->ranged |= 1u << m;
}

static int cmp_rows(const void *a, const void *b)
{
	return strcmp(((const struct bmf_row *)a)->name, ((const struct bmf_row *)b)->name);
}

/* Adds src into dst (one name): values and bounds sum, a bound of a
 * measure without one being its value. */
static void merge(struct bmf_row *dst, const struct bmf_row *src)
{
	for (int m = 0; m < BMF_NMEASURES; m++) {
		unsigned bit = 1u << m;

		if (!(src->has & bit))
			continue;
		for (int k = 0; k < 3; k++)
			dst->v[m][k] = (dst->has & bit ? dst->v[m][k] : 0) + src->v[m][k];
		dst->has |= bit;
		dst->ranged |= src->ranged & bit;
	}
}

/* A JSON string of valid UTF-8 (bmf__row made it so). */
static void put_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/* Counts and nanoseconds as integers; a median between two runs may end
 * in .5, written exactly. */
static void put_number(FILE *f, double v)
{
	if (v == floor(v) && fabs(v) < 9007199254740992.0)
		fprintf(f, "%.0f", v);
	else
		fprintf(f, "%.17g", v);
}

static void put_row(FILE *f, const struct bmf_row *r, bool first)
{
	const char *sep = "";

	fputs(first ? "\n  " : ",\n  ", f);
	put_string(f, r->name);
	fputs(": {", f);
	for (int m = 0; m < BMF_NMEASURES; m++) {
		if (!(r->has & (1u << m)))
			continue;
		fprintf(f, "%s\"%s\": {\"value\": ", sep, bmf_measure_slugs[m]);
		put_number(f, r->v[m][VAL]);
		if (r->ranged & (1u << m)) {
			fputs(", \"lower_value\": ", f);
			put_number(f, r->v[m][LO]);
			fputs(", \"upper_value\": ", f);
			put_number(f, r->v[m][HI]);
		}
		fputc('}', f);
		sep = ", ";
	}
	fputc('}', f);
}

int bmf__write(struct bmf *b, FILE *f)
{
	size_t n = 0;

	if (b->nrows)
		qsort(b->rows, b->nrows, sizeof(*b->rows), cmp_rows);
	for (size_t i = 0; i < b->nrows; i++) {
		if (n && !strcmp(b->rows[n - 1].name, b->rows[i].name)) {
			merge(&b->rows[n - 1], &b->rows[i]);
			free(b->rows[i].name);
			continue;
		}
		b->rows[n++] = b->rows[i];
	}
	b->nrows = n;
	fputc('{', f);
	n = 0;
	for (size_t i = 0; i < b->nrows; i++)
		if (b->rows[i].has)
			put_row(f, &b->rows[i], !n++);
	fputs(n ? "\n}\n" : "}\n", f);
	return fflush(f) || ferror(f) ? -EIO : 0;
}

void bmf__free(struct bmf *b)
{
	for (size_t i = 0; i < b->nrows; i++)
		free(b->rows[i].name);
	free(b->rows);
	memset(b, 0, sizeof(*b));
}
