// SPDX-License-Identifier: MIT
/* record_spawn.c: starting the held command (record.h) so that it runs
 * rewritten sleds: its executable's copy, a mount namespace of its own
 * for the copies of what it links and of what its tree maps later
 * (copies.h), or the original with mixed exits when none of that can be. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "process/proc_maps.h"
#include "process/sled_rewrite.h"
#include "record/record_int.h"

/* Under auto a copy that cannot be used is one line, and the run goes on
 * with mixed exits; --exit=rewrite makes it an error. */
static int no_rewrite(struct record *r, const char *why)
{
	if (r->exits.copy_required)
		return record__fail(-ENOTSUP, "%s: sleds not rewritten: %s", r->path, why);
	if (!r->opts->quiet)
		fprintf(stderr,
			"sledtrace: %s: sleds not rewritten: %s; exits: uretprobe where safe, "
			"inferred elsewhere\n",
			r->path, why);
	return 0;
}

/* The executable is probed through the copy, and known by the copy's
 * inode when the child maps it. */
static int use_copy(struct record *r, struct traced_object *o)
{
	struct stat st;

	if (fstat(sled_rewrite__fd(r->rw), &st))
		return record__fail(-errno, "cannot stat the rewritten copy: %s", strerror(errno));
	o->dev = proc_maps__dev(st.st_dev);
	o->ino = st.st_ino;
	o->probe_path = sled_rewrite__path(r->rw);
	o->rewritten = true;
	return 0;
}

/* Starts the held child, running the rewritten copy when there is one. */
static int spawn(struct record *r)
{
	struct traced_object *o = object_set__count(r->objs) ? object_set__get(r->objs, 0) : NULL;
	char why[512];
	int ret;

	if (r->exits.copy_required && !o)
		return no_rewrite(r, "it has no sleds");
	if (o && r->exits.copy == EXIT_COPY_REWRITTEN &&
	    copies__rewrite(o, r->runtime, &r->rw, why, sizeof(why)) && (ret = no_rewrite(r, why)))
		return ret;
	if (!r->rw)
		ret = launch__spawn(&r->child, r->path, r->opts->argv);
	else if (!(ret = sled_rewrite__spawn(&r->rw, &r->child, r->path, r->opts->argv, why,
					     sizeof(why))) &&
		 !r->rw)
		return no_rewrite(r, why); /* the child runs the original */
	if (ret)
		return record__fail(ret, "cannot start %s: %s", r->path, strerror(-ret));
	return r->rw ? use_copy(r, o) : 0;
}

/* Objects the tree maps later get copies bound in the command's namespace,
 * when it has one of its own. */
static void init_copies(struct record *r)
{
	r->copies = (struct copies){ .ns_fd = r->child.ns_fd,
				     .xray_options = getenv("XRAY_OPTIONS"),
				     .verbose = r->opts->verbose > 0,
				     .offered = object_set__count(r->objs) };
}

/* The objects the executable links get their copies bound before it runs. */
static int start_copies(struct record *r)
{
	int ret;

	init_copies(r);
	if (r->copies.ns_fd < 0)
		return 0;
	ret = copies__add_linked(&r->copies, r->objs, r->path, r->child.run_as);
	if (!ret)
		ret = object_set__register(r->objs, r->col, r->fb);
	if (ret)
		return record__fail(ret, "cannot add the objects %s links: %s", r->path,
				    strerror(-ret));
	copies__make(&r->copies, r->objs);
	return 0;
}

/* --exit for the command (exit_policy.h), from what this kernel runs
 * cheaply. */
static int resolve_exits(struct record *r)
{
	/* SLEDTRACE_NO_NOP5=1 runs as on a kernel without the optimization
	 * (tests, comparisons): seccomp cannot hide the uprobe system call. */
	bool no_nop5 = getenv("SLEDTRACE_NO_NOP5") && strcmp(getenv("SLEDTRACE_NO_NOP5"), "0");
	struct exit_env env = { .command = true,
				.sleds = !r->opts->no_xray,
				.nop5_fast = !no_nop5 && sled_rewrite__kernel_optimizes() };
	char why[256];

	if (r->opts->verbose && env.sleds && env.nop5_fast)
		fprintf(stderr,
			"sledtrace: this kernel runs uprobes on 5-byte nops as calls: "
			"sleds of what the command maps are rewritten\n");
	else if (r->opts->verbose && env.sleds)
		fprintf(stderr,
			"sledtrace: this kernel does not run uprobes on 5-byte nops as calls (%s): "
			"auto exits are uretprobe where safe, inferred elsewhere\n",
			no_nop5 ? "SLEDTRACE_NO_NOP5" : "no uprobe system call");
	if (exit_policy__resolve(r->opts->exits, &env, &r->exits, why, sizeof(why)))
		return record__fail(-ENOTSUP, "%s", why);
	return 0;
}

int record__spawn(struct record *r)
{
	int ret = resolve_exits(r);

	if (ret)
		return ret;
	/* A namespace of its own, even with nothing to bind at the start. */
	r->child.private_ns = r->exits.copy == EXIT_COPY_REWRITTEN;
	r->child.silent = r->opts->silent;
	ret = spawn(r);
	return ret ? ret : start_copies(r);
}
