// SPDX-License-Identifier: MIT
/* cmd_record.c: `sledtrace record`: its options, and the walk through a
 * recording's phases (record.h).  Any failure is one line on stderr, a
 * non-zero exit and no output file. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "cli/commands.h"
#include "cli/options.h"
#include "object/debuginfo.h"
#include "probes/exit_policy.h"
#include "record/record.h"
#include "record/record_budget.h"
#include "select/capture.h"
#include "record/record_opts.h"
#include "process/launch.h"

/* The parsed form of what record_opts holds as values. */
struct record_cli {
	struct record_opts o;
	const char *pid_list; /* -p */
	struct cli_list objects;
	struct cli_list under;
	struct cli_list captures;
	struct cli_list flows;
	struct cli_list alloc_fns;
	const char *budget; /* --budget, as given */
	struct cli_list budget_from;
};

#define S struct record_cli

_Static_assert(sizeof(enum exit_mode) == sizeof(int), "CLI_ENUM stores an int");
_Static_assert(sizeof(enum attach_mode) == sizeof(int), "CLI_ENUM stores an int");

static const char *const attach_names[] = { "auto", "multi", "perf", NULL };

static const struct cli_option options[] = {
	CLI_STRING('o', "output", S, o.output, "FILE", "sledtrace.pftrace",
		   "the trace; '-' is standard output; a device, FIFO or socket is written "
		   "through, /dev/null builds no trace"),
	CLI_SELECT('F', "filter", S, o.sel, 'F', "REGEX",
		   "trace functions whose name matches REGEX (POSIX ERE)"),
	CLI_SELECT('N', "exclude", S, o.sel, 'N', "REGEX",
		   "never trace functions matching REGEX (wins over --filter)"),
	CLI_SELECT(0, "filter-file", S, o.sel, 'f', "FILE",
		   "patterns from FILE (see 'sledtrace filter')"),
	CLI_FLAG(0, "allow-empty", S, o.sel.allow_empty,
		 "a filter that selects nothing is not an error"),
	CLI_ENUM(0, "exit", S, o.exits, exit_mode_names, "MODE", "auto",
		 "how returns are seen: auto is rewrite when the executable's copy can be used, "
		 "else mixed; rewrite probes a copy whose sleds start with a 5-byte nop, run in a "
		 "private mount namespace (exact and fast); mixed uses uretprobes where no "
		 "exception can unwind through (C objects, leaf functions) and infers exits "
		 "elsewhere; sled probes the original exit sleds (exact and safe but slow); "
		 "uretprobe is fast but aborts targets that unwind through it; infer probes "
		 "entries only and infers exits"),
	CLI_ENUM(0, "attach", S, o.attach, attach_names, "MODE", "auto",
		 "multi: one uprobe_multi link (Linux 6.6+); perf: one perf-event uprobe per "
		 "probe; auto: multi when the kernel has it"),
	CLI_SIZE(0, "ring-size", S, o.ring_size, "8M", 4096, 1u << 30, true,
		 "BPF ring buffer size, a power of two from 4K to 1G"),
	CLI_UINT(0, "max-depth", S, o.max_depth, "N", "unlimited", 1, 1000000,
		 "leave out calls nested deeper than N (counted in the trace)"),
	CLI_DURATION(0, "min-duration", S, o.min_duration_ns, "0",
		     "leave out calls shorter than TIME, like 500ns, 2us, 1ms (counted)"),
	CLI_FLAG(0, "no-xray", S, o.no_xray,
		 "the binary has no sleds: probe its function symbols (entry and return)"),
	CLI_FLAG(0, "all", S, o.all, "with --no-xray, every function symbol (else give --filter)"),
	CLI_STRING(0, "debug-dir", S, o.debug_dir, "DIR", DEBUGINFO_ROOT,
		   "with --no-xray, where a stripped COMMAND's debug files are (.build-id/...)"),
	CLI_FLAG(0, "mangled", S, o.mangled, "keep raw symbol names"),
	CLI_FLAG(0, "no-sched", S, o.no_sched,
		 "no on-CPU time: leave the scheduler's switches of the traced threads out "
		 "(on-CPU times then equal wall times)"),
	CLI_FLAG(0, "no-causes", S, o.no_causes,
		 "no causes: do not link a thread's work to the frame that created or woke it"),
	CLI_FLAG(0, "costs", S, o.costs,
		 "exact costs per call: allocations and their bytes, frees, system calls by "
		 "name, page faults and voluntary switches, self and inclusive "
		 "(docs/DESIGN.md, \"Costs\")"),
	CLI_LIST(0, "alloc-fn", S, alloc_fns, "SYM",
		 "with --costs: also count calls of SYM, an allocator of the program's own "
		 "whose first argument is the size (like je_malloc)"),
	CLI_FLAG(0, "no-events", S, o.no_events,
		 "benchmarks: probes fire but record nothing (the cost floor)"),
	CLI_FLAG('q', "quiet", S, o.quiet, "no status line, no summary"),
	CLI_FLAG(0, "strict", S, o.strict,
		 "exit 3 (when COMMAND itself succeeded) unless the trace is exact: no event "
		 "dropped, no coverage gap, no child or notice lost"),
	CLI_COUNT(
		'v', "verbose", S, o.verbose,
		"-v: the probe plan and the time of each phase; -vv: libbpf's warnings too; -vvv: libbpf's debug messages"),
	CLI_STRING('p', "pid", S, pid_list, "PIDS", "none: run COMMAND",
		   "trace these running processes (every thread, every object with sleds) "
		   "instead of running COMMAND, until Ctrl-C, SIGTERM, SIGHUP, --duration or "
		   "their exit"),
	CLI_DURATION(0, "duration", S, o.duration_ns, "until stopped",
		     "with -p: stop after TIME, like 10s"),
	CLI_FLAG(0, "follow", S, o.follow, "with -p: trace the children they start from now on"),
	CLI_LIST(0, "object", S, objects, "GLOB",
		 "trace only the objects whose path matches GLOB, like '*/build/Release/*.node'; "
		 "none given: every object with sleds"),
	CLI_LIST(0, "under", S, under, "REGEX",
		 "record only the calls made while a function matching REGEX is on the thread's "
		 "stack, those functions' calls included (decided in the kernel; the rest is "
		 "counted as gated_out); -F/-N still choose what else is probed"),
	CLI_LIST(0, "capture", S, captures, "SPEC",
		 "take the arguments and return values of the functions matching SPEC's regex: "
		 "REGEX alone takes what DWARF types say, REGEX:1,2/s,ret/d chooses registers "
		 "and formats (d u x b s S, d/u/x with a width like d32)"),
	CLI_LIST(0, "flow", S, flows, "SPEC",
		 "hand-offs between threads, SPEC being SEND:N=RECV:M: a call of a function "
		 "matching SEND whose argument N equals the argument M of a later call of one "
		 "matching RECV causes that call (a job pointer pushed by one thread and run by "
		 "another); SEND 'stack': RECV's argument points into the stack of the frame "
		 "that made it; 'rayon' names rayon's own (docs/DESIGN.md, \"Causes\")"),
	CLI_STRING(0, "budget", S, budget, "PCT", "none: probe every selected function",
		   "real times: probe only the selected functions whose calls cost at most PCT of "
		   "the program's own time (like 5%), leaving the most called unprobed so their "
		   "time counts in their callers'; the counts come from --budget-from, else from "
		   "a counting pass: the command run once more first, its output discarded (with "
		   "-p: a second of recording)"),
	CLI_LIST(0, "budget-from", S, budget_from, "TRACE",
		 "with --budget: take the call counts from TRACE, an earlier recording of the "
		 "program without --budget, instead of a counting pass (each "
		 "function's most calls in any)"),
	CLI_DURATION(0, "untraced-cpu", S, o.untraced_cpu_ns, "timed",
		     "with --budget-from: the program's own CPU time untraced (as measured "
		     "for the run TRACE recorded), instead of timing a run of COMMAND"),
	CLI_FLAG(0, "as-root", S, o.as_root,
		 "under sudo, run COMMAND as root (default: as the user who ran sudo)"),
	CLI_END,
};

static void init(void *set)
{
	struct record_opts *o = &((S *)set)->o;

	o->output = "sledtrace.pftrace";
	o->ring_size = 8ull << 20;
}

/* A repeatable option's values into a fixed array of record_opts. */
static int copy_list(const struct cli_list *from, const char **to, size_t *n, size_t max,
		     const char *what, char *err, size_t errlen)
{
	if (from->n > max) {
		snprintf(err, errlen, "%s: at most %zu", what, max);
		return -1;
	}
	for (size_t i = 0; i < from->n; i++)
		to[(*n)++] = from->v[i];
	return 0;
}

/* --flow: the SPECs, with a known runtime's name (capture.h's
 * CAPTURE_FLOWS_*) standing for its own. */
static int copy_flows(const struct cli_list *from, struct record_opts *o, char *err, size_t errlen)
{
	const size_t max = sizeof(o->flows) / sizeof(o->flows[0]);

	for (size_t i = 0; i < from->n; i++) {
		const char *const *known = capture_known_flows(from->v[i]);

		for (; known && *known && o->nflows < max; known++)
			o->flows[o->nflows++] = *known;
		if (!known && o->nflows < max)
			o->flows[o->nflows++] = from->v[i];
		if (o->nflows == max) {
			snprintf(err, errlen, "--flow: at most %zu", max - 1);
			return -1;
		}
	}
	return 0;
}

/* "4242" or "4242,4250" into o->pids. */
static int parse_pids(struct record_opts *o, const char *arg, char *err, size_t errlen)
{
	for (const char *p = arg; *p;) {
		char *end;
		long v = strtol(p, &end, 10);

		if (end == p || v <= 0 || v > 0x3fffffff || (*end && *end != ',') ||
		    o->npids == sizeof(o->pids) / sizeof(o->pids[0])) {
			snprintf(
				err, errlen,
				"-p wants process ids like 4242 or 4242,4250 (at most 64), not '%s'",
				arg);
			return -1;
		}
		o->pids[o->npids++] = (pid_t)v;
		p = *end ? end + 1 : end;
	}
	return 0;
}

/* --capture: each SPEC must parse (a bad one is a usage error now, not
 * a failure once the target runs). */
static int check_captures(S *c, char *err, size_t errlen)
{
	struct record_opts *o = &c->o;
	struct capture_set *cs = NULL;
	int ret;

	if (copy_list(&c->captures, o->captures, &o->ncaptures, 64, "--capture specs", err,
		      errlen) ||
	    copy_flows(&c->flows, o, err, errlen))
		return -1;
	ret = capture_set__new(o->captures, o->ncaptures, o->flows, o->nflows, &cs, err, errlen);
	capture_set__free(cs);
	if (ret == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	return ret ? -1 : 0;
}

/* -p, --duration, --follow, --object, --as-root. */
static int check_scope(S *c, char *err, size_t errlen)
{
	struct record_opts *o = &c->o;

	if (c->pid_list && parse_pids(o, c->pid_list, err, errlen))
		return -1;
	if (copy_list(&c->objects, o->objects, &o->nobjects, 64, "--object patterns", err,
		      errlen) ||
	    copy_list(&c->under, o->under, &o->nunder, 64, "--under patterns", err, errlen))
		return -1;
	if (!o->npids && o->duration_ns)
		snprintf(err, errlen,
			 "--duration goes with -p (a command is traced until it exits)");
	else if (!o->npids && o->follow)
		snprintf(err, errlen,
			 "--follow goes with -p (a command's children are always traced)");
	else if (o->npids && o->no_xray)
		snprintf(err, errlen, "--no-xray is for a command, not for -p");
	else if (o->npids && o->as_root)
		snprintf(err, errlen, "--as-root is for a command; -p runs nothing");
	else
		return 0;
	return -1;
}

/* --budget=PCT: "5%", "0.5%" or "5", a share in (0, 100%]. */
static int check_budget(S *c, char *err, size_t errlen)
{
	struct record_opts *o = &c->o;
	char *end;
	double v;

	if (copy_list(&c->budget_from, o->budget_from, &o->nbudget_from, 8, "--budget-from traces",
		      err, errlen))
		return -1;
	if (!c->budget) {
		if (!o->nbudget_from && !o->untraced_cpu_ns)
			return 0;
		snprintf(err, errlen, "--budget-from and --untraced-cpu go with --budget=PCT");
		return -1;
	}
	if (o->untraced_cpu_ns && !o->nbudget_from) {
		snprintf(err, errlen, "--untraced-cpu goes with --budget-from");
		return -1;
	}
	errno = 0;
	v = strtod(c->budget, &end);
	if (*end == '%')
		end++;
	if (errno || end == c->budget || *end || !(v > 0 && v <= 100)) {
		snprintf(err, errlen,
			 "--budget wants a share of the program's time in (0, 100%%], like 5%%, "
			 "not '%s'",
			 c->budget);
		return -1;
	}
	o->budget = v / 100;
	/* A budget probes few calls: a rewritten copy's cheap hits do not pay
	 * for its costs per process and per sled (its first hit is rewritten
	 * into a call), which were most of a budgeted Lua run's cost. */
	if (o->exits == EXIT_AUTO)
		o->exits = EXIT_MIXED;
	if (o->no_events) {
		snprintf(err, errlen,
			 "--budget and --no-events contradict (a budget is for real times)");
		return -1;
	}
	return 0;
}

/* --alloc-fn: allocators are counted only by --costs. */
static int check_costs(S *c, char *err, size_t errlen)
{
	struct record_opts *o = &c->o;

	if (copy_list(&c->alloc_fns, o->alloc_fns, &o->nalloc_fns, 16, "--alloc-fn symbols", err,
		      errlen))
		return -1;
	if (o->nalloc_fns && !o->costs) {
		snprintf(err, errlen, "--alloc-fn goes with --costs");
		return -1;
	}
	return 0;
}

static int check(void *set, char *err, size_t errlen)
{
	struct record_opts *o = &((S *)set)->o;

	if (check_scope(set, err, errlen) || check_captures(set, err, errlen) ||
	    check_budget(set, err, errlen) || check_costs(set, err, errlen))
		return -1;
	if (o->all && !o->no_xray)
		snprintf(err, errlen, "--all only means something with --no-xray");
	else if (o->no_xray && o->all && o->sel.n)
		snprintf(err, errlen, "--all and --filter/--exclude/--filter-file contradict");
	else if (o->no_xray && !o->all && !o->sel.n)
		snprintf(err, errlen,
			 "--no-xray probes every function symbol: choose some with -F REGEX, "
			 "or say --all");
	else if (exit_policy__check(o->exits, !o->no_xray, err, errlen))
		return -1;
	else if (o->debug_dir && !o->no_xray)
		snprintf(err, errlen, "--debug-dir only means something with --no-xray");
	else if (o->sel.allow_empty && !o->sel.n)
		snprintf(err, errlen, "--allow-empty only means something with a filter");
	else if (o->quiet && o->verbose)
		snprintf(err, errlen, "--quiet and --verbose contradict");
	else if (cli_check_regexes(&o->sel, err, errlen))
		return -1;
	else
		return cli_check_under(o->under, o->nunder, err, errlen);
	return -1;
}

static int run(void *set, char **operands, int noperands)
{
	static const char *const phases[] = { "open", "load", "start", "run", "finish", "detach" };
	struct record_opts *o = &((S *)set)->o;
	struct budget *plan = NULL;
	double ms[6] = { 0 };
	int err;

	if (!noperands == !o->npids) {
		fprintf(stderr, "sledtrace: record: %s\n",
			o->npids ? "-p traces running processes: give -p or a command, not both"
				 : "no command given (sledtrace record -o OUT -- COMMAND ..., "
				   "or -p PID)");
		return EXIT_USAGE;
	}
	o->argv = o->npids ? NULL : operands;
	/* A trace output that closes (a FIFO's or socket's reader gone) is a
	 * write error with its one line, not a silent death mid-run.  The
	 * other commands die of SIGPIPE like any filter in a pipeline. */
	launch__ignore_sigpipe();
	if (o->budget && (err = record_budget__plan(o, &plan, &o->untraced_cpu_ns)))
		return err == -E2BIG ? EXIT_USAGE : EXIT_FAILURE_RUN;
	o->plan = plan;
	err = record__session(o, ms);
	budget__free(plan);
	if (o->verbose) {
		fprintf(stderr, "sledtrace: timing:");
		for (int i = 0; i < 6; i++)
			fprintf(stderr, "%s %s %.1f ms", i ? "," : "", phases[i], ms[i]);
		fputc('\n', stderr);
	}
	/* The command's own status once it ran; 1 for our own failures. */
	if (err == RECORD_EUSAGE)
		return EXIT_USAGE;
	return err < 0 ? EXIT_FAILURE_RUN : err;
}

const struct cli_command cmd_record = {
	.name = "record",
	.summary = "run a command and trace its XRay-instrumented functions",
	.synopsis = "[OPTIONS] [--] COMMAND [ARGS...]  |  [OPTIONS] -p PID[,PID...]",
	.about = "Runs COMMAND, and every process it starts, with every XRay-instrumented "
		 "function of their executables and shared objects traced "
		 "from its first instruction and writes a Perfetto trace (open it at "
		 "https://ui.perfetto.dev).  COMMAND's standard input, output and error are left "
		 "alone; record exits with COMMAND's exit status (128+N if signal N killed it).  "
		 "Options end at the first operand: everything after it is COMMAND's.",
	.operand = "COMMAND",
	.options = options,
	.min_operands = 0, /* with -p; else check() wants COMMAND */
	.max_operands = -1,
	.stop_at_operand = true,
	.check = check,
	.run = run,
	.settings_size = sizeof(S),
	.init = init,
};
