// SPDX-License-Identifier: MIT
/* srcpath.c: see srcpath.h.  Lexical on purpose: the paths name files of
 * the build host, which need not exist where a trace is read, so symlinks
 * cannot be asked about. */
#include "object/srcpath.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The output is written over the input: every component is copied at or
 * before where it was read, since each one kept is preceded in the input
 * by at least the one separator written before it. */
char *srcpath__normalize(char *s)
{
	bool abs = s[0] == '/';
	size_t w = abs, floor = w, r = 0;

	for (;;) {
		size_t k;

		while (s[r] == '/')
			r++;
		k = strcspn(s + r, "/");
		if (!k)
			break;
		if (k == 2 && s[r] == '.' && s[r + 1] == '.' && w > floor) {
			while (w > floor && s[w - 1] != '/')
				w--;
			if (w > floor)
				w--; /* the separator before the component dropped */
		} else if (!(k == 1 && s[r] == '.') &&
			   !(k == 2 && s[r] == '.' && s[r + 1] == '.' && abs)) {
			bool up = k == 2 && s[r] == '.' && s[r + 1] == '.';

			if (w > (size_t)abs)
				s[w++] = '/';
			memmove(s + w, s + r, k);
			w += k;
			if (up) /* a relative path's leading "..": nothing to drop */
				floor = w;
		}
		r += k;
	}
	if (!w)
		s[w++] = '.';
	s[w] = '\0';
	return s;
}

char *srcpath__join(const char *dir, const char *name)
{
	char *s;

	if (!name)
		return NULL;
	if (name[0] == '/' || !dir || !dir[0]) {
		size_t n = strlen(name);

		s = malloc(n + 2); /* "" becomes "." */
		if (s)
			memcpy(s, name, n + 1);
	} else if (asprintf(&s, "%s/%s", dir, name) < 0) {
		s = NULL;
	}
	return s ? srcpath__normalize(s) : NULL;
}
