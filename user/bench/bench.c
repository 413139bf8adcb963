// SPDX-License-Identifier: MIT
/* bench.c: see bench.h.  A command that fails or cannot be recorded ends
 * the job: there is no verdict. */
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <wordexp.h>

#include "bench/bench.h"
#include "diff/judge_rules.h"
#include "util/output_file.h"

static const char *const side_names[2] = { "base", "head" };

/* A simple command line becomes argv as the shell would split it; one
 * with shell syntax runs under sh -c. */
static int command_argv(const char *cmd, wordexp_t *we, bool *shell)
{
	int rc = wordexp(cmd, we, WRDE_NOCMD);

	*shell = rc == WRDE_BADCHAR || rc == WRDE_CMDSUB;
	return *shell ? 0 : rc || !we->we_wordc ? -EINVAL : 0;
}

/* Runs argv with its output in log and /dev/null as input; its exit
 * status, and *cpu_ns (when not NULL) its tree's CPU time. */
static int spawn(char *const *argv, const char *log, uint64_t *cpu_ns)
{
	struct rusage ru;
	int status, fd;
	pid_t pid = fork();

	if (pid < 0)
		return -errno;
	if (!pid) {
		fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0 || dup2(fd, STDOUT_FILENO) < 0 || dup2(fd, STDERR_FILENO) < 0)
			_exit(127);
		fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
		if (fd < 0 || dup2(fd, STDIN_FILENO) < 0)
			_exit(127);
		execv(argv[0], argv);
		execvp(argv[0], argv);
		_exit(127);
	}
	while (wait4(pid, &status, 0, &ru) < 0)
		if (errno != EINTR)
			return -errno;
	if (cpu_ns)
		*cpu_ns = (uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000000u +
			  (uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1000u;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

struct job {
	const struct bench_opts *a;
	char self[4096];
	char **cmd_argv[2];
	size_t cmd_argc[2];
	char **paths[2]; /* most a side, the first nruns recorded */
	uint32_t nruns, most;
	/* --budget: one run a side with every function probed, and what the
	 * budgeted runs add to record's options */
	char *calls[2];
	char *budget_opts[5];
	size_t nbudget_opts;
	struct output_file bmf; /* --bmf, open from before the runs */
	bool bmf_open;
};

#define TIMING_RUNS 3 /* untraced runs a side whose median CPU time plans the budget */

/* argv of one run: the command itself (warm-up), or sledtrace record
 * writing trace (NULL: warm-up). */
static char **run_argv(const struct job *j, int side, const char *trace)
{
	size_t n = 0, max = 8 + j->a->nrecord_opts + j->nbudget_opts + j->cmd_argc[side];
	char **v = calloc(max, sizeof(*v));

	if (!v)
		return NULL;
	if (trace) {
		v[n++] = (char *)j->self;
		v[n++] = "record";
		v[n++] = "--quiet";
		v[n++] = "-o";
		v[n++] = (char *)trace;
		for (size_t i = 0; i < j->a->nrecord_opts; i++)
			v[n++] = (char *)j->a->record_opts[i];
		for (size_t i = 0; i < j->nbudget_opts && trace != j->calls[side]; i++)
			v[n++] = j->budget_opts[i];
		v[n++] = "--";
	}
	for (size_t i = 0; i < j->cmd_argc[side]; i++)
		v[n++] = j->cmd_argv[side][i];
	return v;
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* One run of a side into trace (NULL: untraced, its CPU time into
 * *cpu_ns when not NULL), logged as SIDE-<name>.log: 0, or -1 with one
 * line on stderr. */
static int run_one(const struct job *j, int side, const char *trace, const char *name,
		   const char *label, uint64_t *cpu_ns)
{
	char log[4200], **argv;
	double t = now_s();
	int rc;

	snprintf(log, sizeof(log), "%s/%s-%s.log", j->a->dir, side_names[side], name);
	if (!(argv = run_argv(j, side, trace)))
		return fputs("sledtrace: out of memory\n", stderr), -1;
	rc = spawn(argv, trace ? log : "/dev/null", cpu_ns);
	free(argv);
	if (rc) {
		fprintf(stderr, "sledtrace: bench: %s %s exited %d (%s)\n", side_names[side], label,
			rc, trace ? log : j->a->cmd[side]);
		return -1;
	}
	if (trace)
		fprintf(stderr, "bench: %s %s: %.2f s\n", side_names[side], label, now_s() - t);
	return 0;
}

/* One run of a side, run i of n (n 0: warm-up i): 0, or -1 with one line
 * on stderr. */
static int one_run(const struct job *j, int side, uint32_t i, uint32_t n)
{
	char name[32], label[64];

	snprintf(name, sizeof(name), "%u", i + 1);
	if (!n)
		snprintf(label, sizeof(label), "warm-up %u", i + 1);
	else
		snprintf(label, sizeof(label), "run %u of %u", i + 1, n);
	return run_one(j, side, n ? j->paths[side][i] : NULL, name, label, NULL);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* --budget: the base's own CPU time untraced (median of TIMING_RUNS,
 * interleaved with the head's), then one run a side with every function
 * probed, whose calls plan the budget and give the comparison its calls:
 * every budgeted run, of either side, leaves out the same functions. */
static int prepare_budget(struct job *j)
{
	uint64_t cpu[2][TIMING_RUNS];
	int rc = 0;

	for (int i = 0; i < TIMING_RUNS && !rc; i++)
		for (int k = 0; k < 2 && !rc; k++)
			rc = run_one(j, i % 2 ? !k : k, NULL, "timing", "untraced timing run",
				     &cpu[i % 2 ? !k : k][i]);
	for (int s = 0; s < 2 && !rc; s++)
		rc = run_one(j, s, j->calls[s], "calls", "run with every function probed", NULL);
	if (rc)
		return rc;
	qsort(cpu[0], TIMING_RUNS, sizeof(cpu[0][0]), cmp_u64);
	j->nbudget_opts = 0;
	if (asprintf(&j->budget_opts[0], "--budget=%s", j->a->budget) < 0 ||
	    asprintf(&j->budget_opts[1], "--budget-from=%s", j->calls[0]) < 0 ||
	    asprintf(&j->budget_opts[2], "--budget-from=%s", j->calls[1]) < 0 ||
	    asprintf(&j->budget_opts[3], "--untraced-cpu=%lluns",
		     (unsigned long long)(cpu[0][TIMING_RUNS / 2] ? cpu[0][TIMING_RUNS / 2] : 1)) <
		    0)
		return fputs("sledtrace: out of memory\n", stderr), -1;
	j->nbudget_opts = 4;
	fprintf(stderr, "bench: budget %s: the base uses %.1f ms of CPU untraced (median of %d)\n",
		j->a->budget, (double)cpu[0][TIMING_RUNS / 2] / 1e6, TIMING_RUNS);
	return 0;
}

/* Rounds up to n runs a side.  Base head, head base, ...: a machine that
 * drifts one way during a round favours neither side over two rounds. */
static int record_rounds(struct job *j, uint32_t n)
{
	int rc = 0;

	while (j->nruns < n && !rc) {
		for (int k = 0; k < 2 && !rc; k++)
			rc = one_run(j, j->nruns % 2 ? !k : k, j->nruns, n);
		j->nruns += !rc;
	}
	return rc;
}

static int record_all(struct job *j)
{
	int rc = 0;

	for (uint32_t i = 0; i < j->a->warmup && !rc; i++)
		for (int s = 0; s < 2 && !rc; s++)
			rc = one_run(j, s, i, 0);
	if (!rc && j->calls[0])
		rc = prepare_budget(j);
	return rc ? rc : record_rounds(j, j->a->runs);
}

/* --max-runs: the first look.  Undecided, or a pass that does not clear
 * every function (its runs too noisy to rule out a change past a
 * threshold), and more runs could decide it (by the noise of these, or
 * because one run a side cannot be tested): rounds up to the runs it
 * estimates would, at most --max-runs a side.  A rule that fired ends it:
 * the job fails whatever more runs would say of the others. */
static int look_first(struct job *j, const struct diff_compare *cmp)
{
	const char *const *calls = j->calls[0] ? (const char *const *)j->calls : NULL;
	size_t n[2] = { j->nruns, j->nruns };
	unsigned need = 0;
	uint32_t to;
	int v = diff_compare__judge(cmp, j->paths, n, calls, &need);

	if (v < 0)
		return -1;
	if (v == DIFF_FAIL || (v == DIFF_PASS && !need))
		return 0;
	if (!need && j->nruns >= 2) {
		fprintf(stderr,
			"bench: inconclusive after %u runs a side, and more runs would "
			"not decide: no more\n",
			j->nruns);
		return 0;
	}
	to = need && need < j->most ? need : j->most;
	if (to <= j->nruns)
		return 0;
	fprintf(stderr, "bench: %s after %u run%s a side; %s: %u a side\n",
		v == DIFF_PASS ? "a pass that does not clear every function" : "inconclusive",
		j->nruns, j->nruns == 1 ? "" : "s",
		need ? "more runs could decide" : "a test needs two runs a side", to);
	return record_rounds(j, to);
}

static int prepare_dir(const char *dir)
{
	char pattern[4200];
	glob_t g;
	int found;

	if (mkdir(dir, 0755) && errno != EEXIST) {
		fprintf(stderr, "sledtrace: bench: cannot create %s: %s\n", dir, strerror(errno));
		return -1;
	}
	snprintf(pattern, sizeof(pattern), "%s/[bh][ae][sa][ed]-*.pftrace", dir);
	found = !glob(pattern, 0, NULL, &g);
	globfree(&g);
	if (found) {
		fprintf(stderr,
			"sledtrace: bench: %s already holds traces; give an empty directory\n",
			dir);
		return -1;
	}
	return 0;
}

static FILE *open_out(const char *dir, const char *name, const char *mode, char *path, size_t n)
{
	FILE *f;

	snprintf(path, n, "%s%s%s", dir ? dir : "", dir ? "/" : "", name);
	if (!(f = fopen(path, mode)))
		fprintf(stderr, "sledtrace: bench: cannot write %s: %s\n", path, strerror(errno));
	return f;
}

/* --bmf: a stream on the file made before the runs (NULL: none, or no
 * memory, said). */
static FILE *bmf_stream(struct job *j)
{
	int fd = j->bmf_open ? dup(j->bmf.fd) : -1;
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;

	if (!f && fd >= 0)
		close(fd);
	if (!f && j->bmf_open)
		fprintf(stderr, "sledtrace: bench: cannot write %s: %s\n", j->bmf.path,
			strerror(errno));
	return f;
}

/* --bmf: named when the comparison and its stream both ended well, else
 * dropped (no half-written file); rc as it goes on. */
static int bmf_finish(struct job *j, FILE *f, int rc)
{
	char err[4200];

	if (!j->bmf_open)
		return rc;
	if (f && fclose(f) && rc >= 0) {
		fprintf(stderr, "sledtrace: bench: cannot write %s: %s\n", j->bmf.path,
			strerror(errno));
		rc = -1;
	}
	if (rc >= 0 && output_file__commit(&j->bmf, err, sizeof(err))) {
		fprintf(stderr, "sledtrace: bench: %s\n", err);
		rc = -1;
	}
	output_file__abort(&j->bmf);
	j->bmf_open = false;
	return rc;
}

/* The table on stdout, DIR/diff.json, DIR/summary.md, --summary, --bmf. */
static int compare(struct job *j, const struct diff_compare *cmp)
{
	char names[3][4200];
	FILE *bmf = bmf_stream(j);
	struct diff_output out[5] = {
		{ DIFF_FORMAT_TABLE, stdout, j->a->width, "standard output" },
		{ DIFF_FORMAT_JSON, open_out(j->a->dir, "diff.json", "w", names[0], 4200), 0,
		  names[0] },
		{ DIFF_FORMAT_MARKDOWN, open_out(j->a->dir, "summary.md", "w", names[1], 4200), 0,
		  names[1] },
		{ DIFF_FORMAT_MARKDOWN, NULL, 0, names[2] },
		{ DIFF_FORMAT_BMF, bmf, 0, j->bmf.path },
	};
	struct diff_output outs[5];
	size_t nopen = 0, npaths[2] = { j->nruns, j->nruns };
	int rc = -1;

	if (j->a->summary)
		out[3].f = open_out(NULL, j->a->summary, "a", names[2], 4200);
	for (int i = 0; i < 5; i++)
		if (out[i].f)
			outs[nopen++] = out[i];
	if (out[1].f && out[2].f && (!j->a->summary || out[3].f) && (!j->bmf_open || bmf))
		rc = diff_compare__run(cmp, j->paths, npaths,
				       j->calls[0] ? (const char *const *)j->calls : NULL, outs,
				       nopen);
	for (int i = 1; i < 4; i++)
		if (out[i].f && fclose(out[i].f) && rc >= 0) {
			fprintf(stderr, "sledtrace: bench: cannot write %s\n", out[i].name);
			rc = -1;
		}
	return bmf_finish(j, bmf, rc);
}

static int make_paths(struct job *j)
{
	for (int s = 0; s < 2 && strcmp(j->a->budget, "off"); s++)
		if (asprintf(&j->calls[s], "%s/%s-calls.pftrace", j->a->dir, side_names[s]) < 0)
			return -ENOMEM;
	for (int s = 0; s < 2; s++) {
		if (!(j->paths[s] = calloc(j->most, sizeof(char *))))
			return -ENOMEM;
		for (uint32_t i = 0; i < j->most; i++)
			if (asprintf(&j->paths[s][i], "%s/%s-%u.pftrace", j->a->dir, side_names[s],
				     i + 1) < 0)
				return -ENOMEM;
	}
	return 0;
}

static void job_free(struct job *j)
{
	for (size_t i = 0; i < sizeof(j->budget_opts) / sizeof(j->budget_opts[0]); i++)
		free(j->budget_opts[i]);
	for (int s = 0; s < 2; s++) {
		free(j->calls[s]);
		for (uint32_t i = 0; j->paths[s] && i < j->most; i++)
			free(j->paths[s][i]);
		free(j->paths[s]);
	}
}

/* --bmf is made before the runs: a path that cannot be written ends the
 * job before minutes of recording (the directory exists by now, for a
 * file inside it). */
static int open_bmf(struct job *j)
{
	char err[4200];

	if (!j->a->bmf)
		return 0;
	if (output_file__create(&j->bmf, j->a->bmf, err, sizeof(err))) {
		fprintf(stderr, "sledtrace: bench: --bmf: %s\n", err);
		return -1;
	}
	j->bmf_open = true;
	return 0;
}

static int with_argv(struct job *j, wordexp_t we[2], const bool shell[2],
		     const struct diff_compare *cmp)
{
	static char sh[] = "/bin/sh", dash_c[] = "-c";
	char *sh_argv[2][3];
	ssize_t n = readlink("/proc/self/exe", j->self, sizeof(j->self) - 1);
	int rc;

	if (n <= 0)
		return fputs("sledtrace: bench: cannot find its own executable\n", stderr), -1;
	j->self[n] = '\0';
	for (int s = 0; s < 2; s++) {
		sh_argv[s][0] = sh;
		sh_argv[s][1] = dash_c;
		sh_argv[s][2] = (char *)j->a->cmd[s];
		j->cmd_argv[s] = shell[s] ? sh_argv[s] : we[s].we_wordv;
		j->cmd_argc[s] = shell[s] ? 3 : we[s].we_wordc;
	}
	if (make_paths(j))
		return fputs("sledtrace: out of memory\n", stderr), -1;
	rc = prepare_dir(j->a->dir);
	rc = rc ? rc : open_bmf(j);
	rc = rc ? rc : record_all(j);
	rc = rc || j->most <= j->a->runs ? rc : look_first(j, cmp);
	return rc ? rc : compare(j, cmp);
}

/* A rule on a count of record --costs needs every run recorded with it:
 * said before minutes of recording rather than after them (the
 * comparison checks the traces themselves too). */
static int check_costs(const struct bench_opts *o, const struct diff_opts *diff)
{
	for (size_t i = 0; i < o->nrecord_opts; i++)
		if (!strcmp(o->record_opts[i], "--costs"))
			return 0;
	for (size_t k = 0; k < diff->nrules; k++) {
		int m = diff_rule__metric(diff->rules[k]);

		if (diff_metric__costs(m))
			return fprintf(stderr,
				       "sledtrace: bench: --fail-on '%s' needs --record-opt=--costs: "
				       "without it the runs count no allocations, system calls or "
				       "page faults\n",
				       diff_rule__text(diff->rules[k])),
			       -1;
	}
	return 0;
}

int bench__run(const struct bench_opts *o, const struct diff_opts *diff, size_t top)
{
	struct diff_opts looks = *diff;
	struct diff_compare cmp = { .opts = &looks, .top = top, .cmd = "bench" };
	struct job j = { .a = o, .most = o->max_runs > o->runs ? o->max_runs : o->runs };
	wordexp_t we[2] = { 0 };
	bool shell[2];
	int rc = check_costs(o, diff);

	/* two looks, each at half the error rate: together no more false
	 * alarms than one look at the whole (Bonferroni) */
	if (j.most > o->runs) {
		looks.confidence = 1 - (1 - diff->confidence) / 2;
		looks.first_look_runs = o->runs;
	}

	for (int s = 0; s < 2 && !rc; s++) {
		if (command_argv(o->cmd[s], &we[s], &shell[s])) {
			fprintf(stderr, "sledtrace: bench: --%s: cannot read the command '%s'\n",
				side_names[s], o->cmd[s]);
			rc = -1;
		}
	}
	if (!rc)
		rc = with_argv(&j, we, shell, &cmp);
	if (j.bmf_open)
		output_file__abort(&j.bmf);
	for (int s = 0; s < 2; s++)
		if (we[s].we_wordv && !shell[s])
			wordfree(&we[s]);
	job_free(&j);
	return rc;
}
