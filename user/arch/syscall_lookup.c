// SPDX-License-Identifier: MIT
/* syscall_lookup.c: see syscall_names.h.  A name is looked up by scanning
 * the table: traces name a few system calls, and a reader looks each up
 * once per frame that made one. */
#include <stdlib.h>
#include <string.h>

#include "arch/syscall_names.h"

const char *syscall_name(uint32_t nr)
{
	return nr < syscall_names_n ? syscall_names[nr] : NULL;
}

int64_t syscall_number(const char *name)
{
	char *end;
	unsigned long v;

	for (unsigned i = 0; i < syscall_names_n; i++)
		if (syscall_names[i] && !strcmp(syscall_names[i], name))
			return i;
	if (strncmp(name, "nr_", 3) || !name[3])
		return -1;
	v = strtoul(name + 3, &end, 10);
	return *end || v > UINT32_MAX ? -1 : (int64_t)v;
}
