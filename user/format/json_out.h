/* SPDX-License-Identifier: MIT */
/* json_out.h: JSON string output shared by the JSON writers (Chrome trace,
 * cgr edges, report --format=json). */
#ifndef SLEDTRACE_JSON_OUT_H
#define SLEDTRACE_JSON_OUT_H

#include <stdio.h>

/* Writes s as a quoted JSON string: '"', '\\' and control characters
 * escaped; other bytes as they are (names are UTF-8). */
void json_out__str(FILE *f, const char *s);
/* The same as a malloc'd string (quotes included), for names written
 * many times; NULL when out of memory. */
char *json_out__quote(const char *s);

#endif
