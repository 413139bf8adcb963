/* SPDX-License-Identifier: MIT */
/* srcpath.h: source file paths as DWARF spells them, made whole.  DWARF
 * names a file relative to its line table's include directory, and that
 * directory relative to the unit's DW_AT_comp_dir; a file compiled from
 * another directory reads like build/../src/x.c.  One spelling per file
 * makes the traces, exports and listings comparable across directories. */
#ifndef SLEDTRACE_SRCPATH_H
#define SLEDTRACE_SRCPATH_H

/* name joined to dir unless name is absolute (or dir is NULL or ""), with
 * "." and ".." resolved lexically and repeated slashes merged: "/a/./b//c"
 * and "/a/x/../b/c" both give "/a/b/c".  ".." stops at "/" and stays at the
 * front of a relative result ("../a"); an empty relative result is ".".
 * Returns a malloc'd string, or NULL when out of memory. */
char *srcpath__join(const char *dir, const char *name);

/* The same in place (the result is never longer, except "" -> "."; s must
 * have room for 2 bytes).  Returns s. */
char *srcpath__normalize(char *s);

#endif
