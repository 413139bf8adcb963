// SPDX-License-Identifier: MIT
/* record_base.c: what every file of the recording uses (record_int.h):
 * the clock, the one-line failure, the summed probe plan.  It calls none
 * of them, so the recording's files call each other in one direction. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <time.h>

#include "record/record_int.h"

uint64_t record__now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int record__fail(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("sledtrace: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	return err < 0 ? err : -EINVAL;
}

void record__sum_plans(struct record *r)
{
	r->plan = (struct object_plan){ 0 };
	for (size_t i = 0; i < object_set__count(r->objs); i++) {
		const struct object_plan *p = &object_set__get(r->objs, i)->plan;

		if (!r->plan.functions || p->returns == RETURNS_SLED)
			r->plan.returns = p->returns;
		r->plan.functions += p->functions;
		r->plan.ret_functions += p->ret_functions;
		r->plan.sleds += p->sleds;
		r->plan.probes += p->probes;
		if (p->copy == EXIT_COPY_REWRITTEN)
			r->plan.copy = EXIT_COPY_REWRITTEN;
	}
}
