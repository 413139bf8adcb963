/* SPDX-License-Identifier: MIT */
/* filter.h: which functions a trace records, as an ordered set of include
 * and exclude regular expressions over function names.
 *
 * Dialect: POSIX extended regular expressions (regcomp with REG_EXTENDED |
 * REG_NOSUB), unanchored and case-sensitive, matched byte-wise in the
 * process locale (sledtrace keeps "C").  So "resolve|normalize|cache" finds
 * the words anywhere in a name, "^" and "$" anchor, and ERE's specials
 * ^ . [ $ ( ) | * + ? { \ need a backslash to be literal ("operator\(\)").
 * There are no Perl classes (\d, \w) and no (?i); write [0-9], [Cc]ache.
 *
 * Semantics: a function is selected when no exclude matches it and either
 * there are no includes or some include matches it.  A pattern matches a
 * function when it matches its display (demangled) name or its raw mangled
 * name.
 *
 * File format (written by filter__write_file, read by filter__load_file):
 * one pattern per line; leading and trailing blanks are ignored; blank lines
 * and lines whose first non-blank byte is '#' are skipped; '!' before a
 * pattern makes it an exclude.  Two comment headers tie the file to the
 * object it was written for:
 *     # object: /abs/path/to/libfoo.so
 *     # build-id: 1a2b...
 * A pattern that itself starts with '#' or '!' or has blanks at either end
 * is written with that byte in brackets ("[#]..."), which means the same. */
#ifndef SLEDTRACE_FILTER_H
#define SLEDTRACE_FILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct filter;

struct filter *filter__new(void); /* NULL on allocation failure */
void filter__free(struct filter *f);

/* Adds one pattern.  -EINVAL for a bad regex: err then names the pattern,
 * gives regerror's text and the byte offset where it goes wrong. */
int filter__add(struct filter *f, const char *regex, bool exclude, char *err, size_t errlen);
/* Adds "^name$" with name's specials escaped: exactly this function. */
int filter__add_exact(struct filter *f, const char *name, bool exclude, char *err, size_t errlen);

/* Adds the patterns of a filter file.  When the file carries a build-id and
 * expect_build_id is non-empty and differs, and the file was written for
 * an object of expect_object's file name (or either is unknown: NULL or no
 * object header), every pattern is still added
 * and -ESTALE returned with err saying the filter was written for another
 * build, so the caller decides between refusing and warning.  Other errors
 * (-errno for I/O, -EINVAL with "FILE:LINE: ..." for a bad pattern) leave f
 * with the patterns before the bad line. */
int filter__load_file(struct filter *f, const char *path, const char *expect_object,
		      const char *expect_build_id, char *err, size_t errlen);
/* Writes f's patterns with the object/build-id headers (either may be NULL
 * or "" to omit it), atomically: a temporary file renamed over path. */
int filter__write_file(const struct filter *f, const char *path, const char *object_path,
		       const char *build_id, char *err, size_t errlen);
/* The same contents to an open stream: 0, -EIO, or -EINVAL for a path or
 * build-id with a newline. */
int filter__write(const struct filter *f, FILE *fp, const char *object_path, const char *build_id);

/* demangled or mangled may be NULL (a C function has only one name). */
bool filter__match(const struct filter *f, const char *demangled, const char *mangled);

size_t filter__count(const struct filter *f);
/* Pattern i in the order added; *exclude tells its kind. */
const char *filter__pattern(const struct filter *f, size_t i, bool *exclude);
bool filter__has_includes(const struct filter *f);

#endif
