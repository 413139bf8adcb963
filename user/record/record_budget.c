// SPDX-License-Identifier: MIT
/* record_budget.c: see record_budget.h.  A budget needs each function's
 * calls before anything is probed for real: nothing cheaper than probing
 * counts them (no hardware counters to sample, and a sample says where
 * time goes, not how often a function is called).  So the counting pass
 * is a recording like the real one, into a trace in a private temporary
 * directory, with nothing that would leave calls out (no --under,
 * --min-duration or --max-depth) and no scheduler switches: a command is
 * run once more with its streams on /dev/null, processes of -p are
 * recorded for a window.  Its trace is then read like any --budget-from.
 * Before it, the program's own time is measured untraced the same way (a
 * run, or a window): with dense probes nothing in a trace tells it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "analysis/budget_plan.h"
#include "record/record.h"
#include "record/record_budget.h"
#include "record/hold/targets.h"
#include "process/launch.h"
#include "process/run_as.h"

static int plan_from(const struct record_opts *o, const char *const *traces, size_t n,
		     uint64_t untraced_ns, struct budget **out)
{
	struct budget_summary sum;
	char err[1024], line[1024];
	int ret = budget_plan__make(traces, n, o->budget, untraced_ns, out, &sum, err, sizeof(err));

	if (ret) {
		fprintf(stderr, "sledtrace: record: %s\n", err);
		return ret;
	}
	if (!o->quiet) {
		budget_plan__describe(&sum, line, sizeof(line));
		fprintf(stderr, "sledtrace: %s\n", line);
	}
	return 0;
}

/* The counting pass's options: o's selection and exits, nothing left out. */
static struct record_opts counting_opts(const struct record_opts *o, const char *trace)
{
	struct record_opts c = *o;

	c.output = trace;
	c.quiet = true;
	c.silent = true;
	c.strict = false;
	c.budget = 0;
	c.nbudget_from = 0;
	c.untraced_cpu_ns = 0;
	c.plan = NULL;
	c.no_sched = true;
	c.max_depth = 0;
	c.min_duration_ns = 0;
	c.nunder = 0;
	c.ncaptures = 0;
	c.nflows = 0;
	/* a window long enough to see the phases of a loop, whatever
	 * --duration says: a plan from 50 ms saw one phase of a server */
	if (o->npids)
		c.duration_ns = BUDGET_WINDOW_NS;
	return c;
}

/* The command run untraced, its streams discarded: its tree's CPU time,
 * or 0 when it could not run (the counting pass then says why). */
static uint64_t untraced_run(const struct record_opts *o)
{
	struct launch l = { .silent = true };
	struct run_as ra = { 0 };
	char path[4096], err[512];
	int status;

	if (launch__resolve(o->argv[0], path, sizeof(path)) ||
	    (!o->as_root && run_as__from_sudo(&ra, err, sizeof(err))))
		return 0;
	l.run_as = o->as_root ? NULL : &ra;
	if (launch__spawn(&l, path, o->argv))
		return 0;
	if (launch__release(&l)) {
		launch__abort(&l);
		return 0;
	}
	status = launch__wait(&l);
	(void)status;
	return l.cpu_ns;
}

/* -p: the targets' CPU time over one window, untraced. */
static uint64_t untraced_window(const struct record_opts *o, uint64_t window_ns)
{
	struct targets t;
	struct timespec ts = { (time_t)(window_ns / 1000000000u), (long)(window_ns % 1000000000u) };
	char err[512];
	uint64_t before;

	if (targets__open(&t, o->pids, o->npids, err, sizeof(err))) {
		targets__close(&t);
		return 0;
	}
	before = targets__cpu_ns(&t);
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
	before = targets__cpu_ns(&t) - before;
	targets__close(&t);
	return before;
}

static int counting_pass(const struct record_opts *o, struct budget **out, uint64_t *untraced_ns)
{
	const char *tmp = getenv("TMPDIR");
	char dir[4096], trace[4200];
	struct record_opts c;
	uint64_t untraced;
	int ret;

	snprintf(dir, sizeof(dir), "%s/sledtrace-budget-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		ret = -errno;
		fprintf(stderr,
			"sledtrace: record: cannot make a directory for the counting pass: %s\n",
			strerror(errno));
		return ret;
	}
	snprintf(trace, sizeof(trace), "%s/counts.pftrace", dir);
	c = counting_opts(o, trace);
	if (!o->quiet)
		fprintf(stderr,
			"sledtrace: budget: timing the program untraced, then counting its calls "
			"(%s; --budget-from=TRACE takes the counts from an earlier recording)\n",
			o->npids ? "a window each"
				 : "the command runs twice more first, its output discarded");
	untraced = o->npids ? untraced_window(o, c.duration_ns) : untraced_run(o);
	/* a window's time is not the recording's: only a run's is kept */
	*untraced_ns = o->npids ? 0 : untraced;
	ret = record__session(&c, NULL);
	if (ret >= 0)
		ret = plan_from(o, (const char *const[]){ trace }, 1, untraced, out);
	unlink(trace);
	rmdir(dir);
	return ret;
}

int record_budget__plan(const struct record_opts *o, struct budget **out, uint64_t *untraced_ns)
{
	*out = NULL;
	*untraced_ns = o->untraced_cpu_ns;
	if (!o->nbudget_from)
		return counting_pass(o, out, untraced_ns);
	/* A run's untraced time fits a run's profile; a window's would not
	 * fit -p's earlier trace, whose span is another. */
	if (!*untraced_ns && !o->npids) {
		if (!o->quiet)
			fprintf(stderr,
				"sledtrace: budget: timing the program untraced first (the "
				"command runs once more, its output discarded)\n");
		*untraced_ns = untraced_run(o);
	}
	return plan_from(o, o->budget_from, o->nbudget_from, *untraced_ns, out);
}
