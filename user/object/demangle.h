/* SPDX-License-Identifier: MIT */
/* demangle.h: display names for C++ (Itanium) and Rust (legacy and v0)
 * symbols through libiberty, with Rust legacy hashes removed. */
#ifndef SLEDTRACE_DEMANGLE_H
#define SLEDTRACE_DEMANGLE_H

/* Returns a malloc'd display name for mangled, or NULL when the name is not
 * mangled (the caller then shows it as is) or on allocation failure. */
char *demangle(const char *mangled);

#endif
