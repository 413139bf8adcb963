/* SPDX-License-Identifier: MIT */
/* read_programs.h: whether the runs of `sledtrace diff` are runs of one
 * program.  Each run lists the file names of the objects whose functions
 * it called.  Two runs of one side that share no object, or a base and a
 * head that share none, are runs of different programs (or of builds
 * whose files are named differently): no comparison can be made, and
 * saying so beats a table of functions that are all "new" and "gone".
 * Objects that only one side has are listed for a note. */
#ifndef SLEDTRACE_DIFF_READ_PROGRAMS_H
#define SLEDTRACE_DIFF_READ_PROGRAMS_H

#include <stddef.h>

struct diff_prog_run {
	char **objects;
	size_t n;
};

struct diff_programs {
	struct diff_prog_run *runs[2];
	size_t nruns[2];
	char **only[2]; /* objects of one side's runs that no run of the other has */
	size_t nonly[2];
};

/* Each returns 0 or -ENOMEM. */
int diff_programs__add_run(struct diff_programs *p, int side);
/* To the side's last run; repeats are ignored. */
int diff_programs__add_object(struct diff_programs *p, int side, const char *object);
/* 0, -EINVAL with one line in err, or -ENOMEM. */
int diff_programs__check(struct diff_programs *p, char *err, size_t errlen);
void diff_programs__free(struct diff_programs *p);

#endif
