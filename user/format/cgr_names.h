/* SPDX-License-Identifier: MIT */
/* cgr_names.h: the bare member name code-graph-rag keys functions by,
 * from a demangled Rust or C++ name: `<Dog as Animal>::speak` -> speak,
 * `Dog::sound(int) const` -> sound, `f::<u32>` -> f, closures and lambdas
 * flagged anonymous. */
#ifndef SLEDTRACE_CGR_NAMES_H
#define SLEDTRACE_CGR_NAMES_H

#include <stdbool.h>
#include <stddef.h>

enum cgr_lang { CGR_C, CGR_CPP, CGR_RUST };

/* From a source file name: .rs -> Rust, .c -> C, anything else C++. */
enum cgr_lang cgr_names__lang(const char *file);
/* Writes the bare name into out (truncated to outlen); returns true when
 * the frame is anonymous (a closure, a lambda, a compiler shim). */
bool cgr_names__bare(enum cgr_lang lang, const char *demangled, char *out, size_t outlen);

#endif
