// SPDX-License-Identifier: MIT
/* xray_runtime.c: see xray_runtime.h.  XRAY_OPTIONS uses the sanitizer
 * flag syntax: name=value pairs separated by blanks, ',' or ':', the last
 * one of a name winning, booleans spelled 1/0, true/false or yes/no. */
#include <stdbool.h>
#include <string.h>

#include "object/xray_runtime.h"

static bool patches_premain(const char *options)
{
	static const char name[] = "patch_premain=";
	bool on = false;

	while (options && *options) {
		size_t len = strcspn(options, " \t\n,:");

		if (len > sizeof(name) - 1 && !strncmp(options, name, sizeof(name) - 1)) {
			const char *v = options + sizeof(name) - 1;
			size_t vlen = len - (sizeof(name) - 1);

			on = (vlen == 1 && *v == '1') || (vlen == 4 && !strncmp(v, "true", 4)) ||
			     (vlen == 3 && !strncmp(v, "yes", 3));
		}
		options += len;
		options += strspn(options, " \t\n,:");
	}
	return on;
}

enum xray_runtime xray_runtime__check(const struct elf_object *obj, const char *xray_options)
{
	if (!elf_object__find_symbol(obj, "__xray_patch") &&
	    !elf_object__find_symbol(obj, "__xray_init"))
		return XRAY_RUNTIME_NONE;
	return patches_premain(xray_options) ? XRAY_RUNTIME_PATCHES_PREMAIN : XRAY_RUNTIME_LINKED;
}
