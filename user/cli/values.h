/* SPDX-License-Identifier: MIT */
/* values.h: the one parser of each kind of option value: sizes, durations,
 * bounded integers and enums.  Each returns 0, or -EINVAL with one message
 * in err that names what is accepted (without the "sledtrace: " prefix). */
#ifndef SLEDTRACE_CLI_VALUES_H
#define SLEDTRACE_CLI_VALUES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* "4096", "4K", "64M", "1G" (K, M, G are powers of 1024; lower case too).
 * max 0: no upper bound. */
int cli_parse_size(const char *s, uint64_t min, uint64_t max, bool pow2, uint64_t *out, char *err,
		   size_t errlen);
/* "500ns", "2us", "1.5ms", "2s", "1m", "1h" to nanoseconds; a bare number
 * is an error that names the units. */
int cli_parse_duration(const char *s, uint64_t *out, char *err, size_t errlen);
/* A decimal integer in [min, max]. */
int cli_parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *out, char *err,
		   size_t errlen);
/* "0.5%", "95%": a percentage in [min, max) to a fraction (0.005). */
int cli_parse_percent(const char *s, double min, double max, double *out, char *err, size_t errlen);
/* The index of s in the NULL-terminated names; the error lists them. */
int cli_parse_enum(const char *s, const char *const *names, int *out, char *err, size_t errlen);

#endif
