// SPDX-License-Identifier: MIT
/* print_format.c: hands a finished diff to the format asked for; nothing
 * calls back into here, so the formats and their shared helpers
 * (print_text.c) form no circle. */
#include <errno.h>

#include "diff/print_format.h"

int diff__print(const struct diff *d, const struct diff_print_opts *o, FILE *f)
{
	static int (*const print[])(const struct diff *, const struct diff_print_opts *, FILE *) = {
		[DIFF_FORMAT_TABLE] = diff__print_table,
		[DIFF_FORMAT_MARKDOWN] = diff__print_markdown,
		[DIFF_FORMAT_JSON] = diff__print_json,
		[DIFF_FORMAT_CSV] = diff__print_csv,
		[DIFF_FORMAT_BMF] = diff__print_bmf,
	};
	int rc = print[o->format](d, o, f);

	return rc || fflush(f) || ferror(f) ? -EIO : 0;
}
