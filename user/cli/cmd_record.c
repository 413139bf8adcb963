// SPDX-License-Identifier: MIT
/* cmd_record.c: `sledtrace record`: parses options and walks a recording
 * through its phases (record.h).  Any failure is one line on stderr, a
 * non-zero exit and no output file. */
#include <stdio.h>

#include "cli/commands.h"
#include "record/record.h"
#include "record/record_opts.h"

int cmd_record(int argc, char **argv)
{
	struct record_opts opts;
	struct record *r = NULL;
	int err;

	err = record_opts__parse(&opts, argc, argv);
	if (err)
		return err > 0 ? 0 : 2;
	err = record__open(&opts, &r);
	if (!err)
		err = record__load(r);
	if (!err)
		err = record__start(r);
	if (!err)
		err = record__run(r);
	if (!err)
		err = record__finish(r);
	record__free(r);
	/* The command's own status once it ran; 1 for our own failures. */
	return err < 0 ? 1 : err;
}
