// SPDX-License-Identifier: MIT
/* values.c: see values.h. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/values.h"

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

static int strict_u64(const char *s, size_t len, uint64_t *out)
{
	uint64_t v = 0;

	if (!len)
		return -EINVAL;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9' || v > (UINT64_MAX - 9) / 10)
			return -EINVAL;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	*out = v;
	return 0;
}

static const char *human_size(char *buf, size_t len, uint64_t v)
{
	static const char suffix[] = "KMG";
	int i = -1;

	while (i < 2 && v && !(v & 1023)) {
		v >>= 10;
		i++;
	}
	/* A char argument, not "%.*s" into suffix: gcc 12 at -O0 crashes on that. */
	if (i >= 0)
		snprintf(buf, len, "%llu%c", (unsigned long long)v, suffix[i]);
	else
		snprintf(buf, len, "%llu", (unsigned long long)v);
	return buf;
}

int cli_parse_size(const char *s, uint64_t min, uint64_t max, bool pow2, uint64_t *out, char *err,
		   size_t errlen)
{
	size_t len = strlen(s);
	unsigned shift = 0;
	uint64_t v;

	if (len && strchr("kKmMgG", s[len - 1])) {
		shift = strchr("kK", s[len - 1]) ? 10 : strchr("mM", s[len - 1]) ? 20 : 30;
		len--;
	}
	if (strict_u64(s, len, &v) || (v << shift) >> shift != v) {
		snprintf(err, errlen, "'%s' is not a size: write bytes or K, M, G, like 4K or 64M",
			 s);
		return -EINVAL;
	}
	v <<= shift;
	if (v < min || (max && v > max) || (pow2 && (v & (v - 1)))) {
		char lo[32], hi[32];

		snprintf(err, errlen, "'%s' is out of range: %sfrom %s to %s", s,
			 pow2 ? "a power of two " : "", human_size(lo, sizeof(lo), min),
			 max ? human_size(hi, sizeof(hi), max) : "any size");
		return -EINVAL;
	}
	*out = v;
	return 0;
}

int cli_parse_duration(const char *s, uint64_t *out, char *err, size_t errlen)
{
	static const struct {
		const char *unit;
		double ns;
	} units[] = {
		{ "ns", 1 },  { "us", 1e3 }, { "ms", 1e6 },
		{ "s", 1e9 }, { "m", 60e9 }, { "h", 3600e9 },
	};
	char *end;
	double v;

	errno = 0;
	v = *s >= '0' && *s <= '9' ? strtod(s, &end) : -1;
	if (v >= 0 && !errno && end != s && *end) {
		for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
			double ns = v * units[i].ns;

			if (strcmp(end, units[i].unit) || !isfinite(ns) || ns >= 1.8e19)
				continue;
			*out = (uint64_t)(ns + 0.5);
			return 0;
		}
	}
	snprintf(err, errlen,
		 "'%s' is not a duration: %s with a unit: ns, us, ms, s, m or h (like 500us)", s,
		 all_digits(s) ? "give the number" : "write a number");
	return -EINVAL;
}

int cli_parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *out, char *err,
		   size_t errlen)
{
	uint64_t v;

	if (strict_u64(s, strlen(s), &v) || v < min || v > max) {
		snprintf(err, errlen, "'%s' is not a whole number from %llu to %llu", s,
			 (unsigned long long)min, (unsigned long long)max);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

int cli_parse_percent(const char *s, double min, double max, double *out, char *err, size_t errlen)
{
	size_t len = strlen(s);
	char *end;
	double v;

	errno = 0;
	v = len > 1 && s[len - 1] == '%' && *s >= '0' && *s <= '9' ? strtod(s, &end) : NAN;
	if (isnan(v) || errno || end != s + len - 1 || v < min || v >= max) {
		snprintf(err, errlen,
			 "'%s' is not a percentage from %g%% to below %g%% (like 0.5%%)", s, min,
			 max);
		return -EINVAL;
	}
	*out = v / 100;
	return 0;
}

/* Appends src to the NUL-terminated dst of size cap, truncating. */
static void append(char *dst, size_t cap, const char *src)
{
	size_t used = strlen(dst);

	if (used + 1 < cap)
		snprintf(dst + used, cap - used, "%s", src);
}

int cli_parse_enum(const char *s, const char *const *names, int *out, char *err, size_t errlen)
{
	for (int i = 0; names[i]; i++)
		if (!strcmp(s, names[i])) {
			*out = i;
			return 0;
		}
	snprintf(err, errlen, "'%s' is not one of ", s);
	for (int i = 0; names[i]; i++) {
		if (i)
			append(err, errlen, ", ");
		append(err, errlen, names[i]);
	}
	return -EINVAL;
}
