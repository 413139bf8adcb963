/* SPDX-License-Identifier: MIT */
/* report_values.h: the most frequent captured values (record --capture)
 * per function and argument, for report --function and --callers.  Memory
 * is bounded: each argument keeps VALUE_SLOTS distinct texts, and once it
 * has seen more they are counted the space-saving way (a new text takes
 * the least counted slot, and its count is then an upper bound), which
 * the output says. */
#ifndef SLEDTRACE_REPORT_VALUES_H
#define SLEDTRACE_REPORT_VALUES_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "model/values.h"
#include "util/u64map.h"

struct vfunc;

struct report_values {
	struct vfunc *funcs;
	size_t n;
	struct u64map idx; /* fid -> index + 1 */
};

/* Counts the values of one call of fid.  0 or -ENOMEM. */
int report_values__add(struct report_values *rv, uint32_t fid, const struct frame_values *v);
bool report_values__has(const struct report_values *rv, uint32_t fid);
/* "values of NAME (calls with values):" then per argument its top texts
 * with their counts, most frequent first. */
void report_values__print(struct report_values *rv, uint32_t fid, const char *name, unsigned top,
			  FILE *f);
/* The same in one line, "NAME: TEXT xN, ...; NAME2: ...", for a TSV or
 * CSV cell: malloc'd, NULL without values (or memory). */
char *report_values__text(struct report_values *rv, uint32_t fid, unsigned top);
/* The same as a JSON object, every kept text (at most 64 per argument):
 * {"calls":N,"args":[{"name":..,"approximate":B,"top":[{"value":..,
 * "count":N},..]},..]}.  Writes nothing without values. */
void report_values__json(struct report_values *rv, uint32_t fid, FILE *f);
void report_values__free(struct report_values *rv);

#endif
