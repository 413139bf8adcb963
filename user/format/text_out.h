/* SPDX-License-Identifier: MIT */
/* text_out.h: the small text encoders every text output shares (JSON
 * strings, CSV and TSV fields, human durations), so that report, diff and
 * the converters quote and print the same way. */
#ifndef SLEDTRACE_TEXT_OUT_H
#define SLEDTRACE_TEXT_OUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Writes s as a quoted JSON string: '"', '\\' and control characters
 * escaped; other bytes as they are (names are UTF-8). */
void text_out__json(FILE *f, const char *s);
/* The same as a malloc'd string (quotes included), for names written
 * many times; NULL when out of memory. */
char *text_out__json_quote(const char *s);

/* Writes s as one CSV field (RFC 4180): quoted, with '"' doubled, when it
 * holds a comma, quote or line break; as it is otherwise. */
void text_out__csv(FILE *f, const char *s);
/* Writes s as one TSV field: tabs and line breaks become spaces, since
 * they would shift the columns. */
void text_out__tsv(FILE *f, const char *s);
/* ns as "812<sep>ns", "1.234<sep>us", "5.678<sep>ms" or "2.000<sep>s" in buf. */
const char *text_out__ns(char *buf, size_t n, uint64_t ns, const char *sep);

#endif
