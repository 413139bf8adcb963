/* SPDX-License-Identifier: MIT */
/* debuginfo.h: the function symbols of a stripped object, from its separate
 * debug file where Debian's -dbgsym packages install it:
 *     ROOT/.build-id/ab/cdef....debug          (by build-id)
 *     DIR/NAME, DIR/.debug/NAME, ROOT/DIR/NAME (by .gnu_debuglink NAME)
 * with ROOT /usr/lib/debug unless --debug-dir says otherwise.  When none is
 * there, the message says where it looked and which package provides it
 * (for a file of Debian package P: P-dbgsym, from the debian-debug
 * archive). */
#ifndef SLEDTRACE_DEBUGINFO_H
#define SLEDTRACE_DEBUGINFO_H

#include <stddef.h>

#include "object/elf_object.h"

#define DEBUGINFO_ROOT "/usr/lib/debug"

/* 0 when obj is not stripped, or when its debug file's symbols were added
 * (*found then names it; "" otherwise).  -ENOENT with one line in err when
 * obj is stripped and no debug file is found; other errors (a debug file
 * of another build) likewise. */
int debuginfo__load(struct elf_object *obj, const char *root, char *found, size_t foundlen,
		    char *err, size_t errlen);

#endif
