/* SPDX-License-Identifier: MIT */
/* bmf.h: Bencher Metric Format (BMF) JSON, what `bencher run --adapter
 * json` reads: an object of benchmarks, each an object of measures (by
 * slug), each {"value", "lower_value", "upper_value"} with the bounds
 * optional.  A benchmark here is a function (on a thread or process
 * name); report (analysis/report_bmf.c) and bench (diff/print_bmf.c) fill
 * one, this file names, merges and writes it (docs/exports.md, "bmf").
 *
 * Names are made stable across builds, as diff matches functions: an
 * "@0x<hex>" address suffix (copies of one static inline function) is
 * dropped.  A name longer than Bencher takes (1024 bytes) is elided in
 * the middle around a hash of the whole, and bytes that are not UTF-8
 * become U+FFFD.  Rows that come to one name are added up, measure by
 * measure, so every name is written once. */
#ifndef SLEDTRACE_FORMAT_BMF_H
#define SLEDTRACE_FORMAT_BMF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* The measures, by their slugs (Bencher's kebab case): a new one goes at
 * the end, and its slug is documented in docs/exports.md. */
enum bmf_measure {
	BMF_CALLS,	 /* "calls" */
	BMF_TOTAL_TIME,	 /* "total-time", ns */
	BMF_SELF_TIME,	 /* "self-time", ns */
	BMF_CPU_TOTAL,	 /* "cpu-total-time", ns, with scheduler switches */
	BMF_CPU_SELF,	 /* "cpu-self-time", ns, with scheduler switches */
	BMF_ALLOCS,	 /* "allocs": record --costs, self counts (report_bmf.c) */
	BMF_ALLOC_BYTES, /* "alloc-bytes" */
	BMF_SYSCALLS,	 /* "syscalls" */
	BMF_PAGE_FAULTS, /* "page-faults" */
	BMF_NMEASURES,
};

extern const char *const bmf_measure_slugs[BMF_NMEASURES];

/* Bencher's limit on a benchmark name, in bytes. */
#define BMF_NAME_MAX 1024

struct bmf_row;

/* The benchmarks being collected; zero it to start. */
struct bmf {
	struct bmf_row *rows;
	size_t nrows, cap;
};

/* A new row named name, then " (object)" when object is not NULL, then
 * "@group" when group is not NULL: its index, or -1 when out of memory. */
long bmf__row(struct bmf *b, const char *name, const char *object, const char *group);
/* A measure of row i: value alone, or with the bounds lo <= value <= hi.
 * Not finite: left out. */
void bmf__set(struct bmf *b, long i, enum bmf_measure m, double value);
void bmf__set_range(struct bmf *b, long i, enum bmf_measure m, double value, double lo, double hi);
/* Sorts by name, adds up rows of one name and writes the object: 0, or
 * -ENOMEM, or -EIO when f has an error. */
int bmf__write(struct bmf *b, FILE *f);
void bmf__free(struct bmf *b);

/* The length of name without an "@0x<hex>" address suffix. */
size_t bmf__stable_len(const char *name);

#endif
