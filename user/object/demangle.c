// SPDX-License-Identifier: MIT
/* demangle.c: display names for C++ (Itanium) and Rust (legacy, v0) symbols
 * through libiberty.
 *
 * Policy for what a reader sees:
 *  - Rust legacy names lose their "::h<16 hex>" hash, also when libiberty
 *    would not recognise them as Rust (a hash with fewer than 5 distinct hex
 *    digits makes it fall back to the C++ demangler, which keeps the hash and
 *    leaves "$LT$"-style escapes undecoded).
 *  - A compiler suffix after the mangled stem is kept when it describes a
 *    code transformation (".cold", ".isra.0", ".constprop.0", ".part.1"),
 *    written the way binutils does: "f(int) [clone .cold]".  ThinLTO's
 *    ".llvm.<digits>" is dropped: like the Rust hash it only exists to keep
 *    promoted local names unique at link time.  A symbol version
 *    ("@@GLIBCXX_3.4") stays as it is.
 *  - Anything that is not a mangled name (C functions, "main") yields NULL. */
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libiberty/demangle.h>

#include "object/demangle.h"

#define RUST_HASH_DIGITS 16

/* libiberty needs at least 5 distinct digits to believe a hash is a Rust
 * hash; this one has 16, and the Rust demangler never prints it. */
static const char canonical_hash[] = "0123456789abcdef";

static bool is_lower_hex(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isdigit((unsigned char)s[i]) && (s[i] < 'a' || s[i] > 'f'))
			return false;
	return true;
}

/* Walks the length-prefixed components of "_ZN...E".  Returns the length of
 * the stem through the closing 'E' when the last component is a Rust legacy
 * hash "h<16 hex>" (its digits start at *hash_at), else 0. */
static size_t rust_legacy_stem(const char *name, size_t *hash_at)
{
	const char *p = name + 3;
	const char *last = NULL;
	size_t last_len = 0;

	if (strncmp(name, "_ZN", 3))
		return 0;
	while (isdigit((unsigned char)*p)) {
		char *end;
		unsigned long len = strtoul(p, &end, 10);

		if (len == 0 || len > strlen(end))
			return 0;
		last = end;
		last_len = len;
		p = end + len;
	}
	if (*p != 'E' || !last || last_len != RUST_HASH_DIGITS + 1 || last[0] != 'h' ||
	    !is_lower_hex(last + 1, RUST_HASH_DIGITS))
		return 0;
	*hash_at = (size_t)(last + 1 - name);
	return (size_t)(p + 1 - name);
}

/* Length of the mangled stem before any ".suffix", 0 if not mangled. */
static size_t mangled_stem(const char *name, bool *rust_legacy, size_t *hash_at)
{
	size_t n;

	*rust_legacy = false;
	n = rust_legacy_stem(name, hash_at);
	if (n) {
		*rust_legacy = true;
		return n;
	}
	/* Itanium and Rust v0 mangling never produce '.' or '@' (symbol
	 * versions, "memcpy@GLIBC_2.2.5") inside the stem. */
	if (!strncmp(name, "_Z", 2) || !strncmp(name, "_R", 2))
		return strcspn(name, ".@");
	return 0;
}

/* The C++ demangler keeps a Rust hash as a last "::h<16 hex>" component. */
static char *strip_rust_hash(char *name)
{
	size_t n = name ? strlen(name) : 0;
	size_t tail = 3 + RUST_HASH_DIGITS;

	if (n > tail && !strncmp(name + n - tail, "::h", 3) &&
	    is_lower_hex(name + n - RUST_HASH_DIGITS, RUST_HASH_DIGITS))
		name[n - tail] = '\0';
	return name;
}

static char *demangle_stem(const char *stem, bool rust_legacy, size_t hash_at)
{
	if (rust_legacy) {
		char *copy = strdup(stem);
		char *out;

		if (!copy)
			return NULL;
		memcpy(copy + hash_at, canonical_hash, RUST_HASH_DIGITS);
		out = cplus_demangle(copy, DMGL_RUST);
		free(copy);
		if (out)
			return out;
		/* Not valid Rust after all (bad escapes): read it as C++. */
		return strip_rust_hash(cplus_demangle(stem, DMGL_GNU_V3 | DMGL_PARAMS | DMGL_ANSI));
	}
	if (!strncmp(stem, "_R", 2))
		return cplus_demangle(stem, DMGL_RUST);
	return cplus_demangle(stem, DMGL_GNU_V3 | DMGL_PARAMS | DMGL_ANSI);
}

/* Length of the next clone group of suffix: ".name" followed by any number
 * of ".<digits>" parts (".constprop.0", ".llvm.12345"). */
static size_t clone_group_len(const char *s)
{
	size_t n = 1 + strcspn(s + 1, ".@");

	while (s[n] == '.' && isdigit((unsigned char)s[n + 1]))
		n += 1 + strcspn(s + n + 1, ".@");
	return n;
}

static bool is_llvm_group(const char *g, size_t n)
{
	if (n <= 6 || strncmp(g, ".llvm.", 6))
		return false;
	for (size_t i = 6; i < n; i++)
		if (!isdigit((unsigned char)g[i]) && g[i] != '.')
			return false;
	return true;
}

/* Appends " [clone .x]" for each kept group of suffix to base (consumed),
 * then a symbol version ("@@LIB_1.0") as it is. */
static char *append_suffix(char *base, const char *suffix)
{
	/* A group of n bytes grows to n + 9 (" [clone " and "]"), n >= 1. */
	size_t cap = strlen(base) + strlen(suffix) * 10 + 1;
	char *out = realloc(base, cap);
	size_t len;

	if (!out) {
		free(base);
		return NULL;
	}
	len = strlen(out);
	while (*suffix == '.') {
		size_t n = clone_group_len(suffix);

		if (n > 1 && !is_llvm_group(suffix, n))
			len += (size_t)snprintf(out + len, cap - len, " [clone %.*s]", (int)n,
						suffix);
		suffix += n;
	}
	if (*suffix == '@')
		snprintf(out + len, cap - len, "%s", suffix);
	return out;
}

char *demangle(const char *mangled)
{
	bool rust_legacy;
	size_t hash_at = 0;
	size_t stem_len;
	char *stem, *out;

	if (!mangled)
		return NULL;
	stem_len = mangled_stem(mangled, &rust_legacy, &hash_at);
	if (!stem_len)
		return NULL;
	stem = strndup(mangled, stem_len);
	if (!stem)
		return NULL;
	out = demangle_stem(stem, rust_legacy, hash_at);
	free(stem);
	if (!out || (mangled[stem_len] != '.' && mangled[stem_len] != '@'))
		return out;
	return append_suffix(out, mangled + stem_len);
}
