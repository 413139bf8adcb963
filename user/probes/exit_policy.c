// SPDX-License-Identifier: MIT
/* exit_policy.c: see exit_policy.h. */
#include <errno.h>
#include <stdio.h>

#include "probes/exit_policy.h"

const char *const exit_mode_names[] = { "auto",	   "sled",  "uretprobe", "infer",
					"rewrite", "mixed", NULL };

/* The mode that asks for the same returns on the original. */
static const enum exit_mode returns_mode[] = {
	[RETURNS_SLED] = EXIT_SLED,
	[RETURNS_URETPROBE] = EXIT_URETPROBE,
	[RETURNS_INFER] = EXIT_INFER,
	[RETURNS_MIXED] = EXIT_MIXED,
};

const char *exit_returns__name(enum exit_returns r)
{
	return exit_mode_names[returns_mode[r]];
}

int exit_policy__check(enum exit_mode mode, bool sleds, char *why, size_t whylen)
{
	if (sleds || (mode != EXIT_SLED && mode != EXIT_REWRITE))
		return 0;
	snprintf(why, whylen, "--exit=%s needs XRay sleds; not with --no-xray",
		 exit_mode_names[mode]);
	return -ENOTSUP;
}

/* Only rewrite and auto run copies; rewrite on the originals some process
 * already maps, and auto wherever no copy is used, are mixed. */
static enum exit_returns original_returns(enum exit_mode mode)
{
	for (enum exit_returns r = RETURNS_SLED; r < RETURNS_MIXED; r++)
		if (returns_mode[r] == mode)
			return r;
	return RETURNS_MIXED;
}

int exit_policy__resolve(enum exit_mode mode, const struct exit_env *env, struct exit_policy *out,
			 char *why, size_t whylen)
{
	int err = exit_policy__check(mode, env->sleds, why, whylen);
	/* Without the kernel's nop5 optimization a rewritten sled is no
	 * cheaper than the original: auto keeps the originals there. */
	bool copies = env->command && env->sleds &&
		      (mode == EXIT_REWRITE || (mode == EXIT_AUTO && env->nop5_fast));

	if (err)
		return err;
	if (mode == EXIT_REWRITE && !env->command) {
		snprintf(why, whylen,
			 "--exit=rewrite needs a command: a running process keeps the file it "
			 "mapped (use auto or mixed with -p)");
		return -ENOTSUP;
	}
	*out = (struct exit_policy){ .copy = copies ? EXIT_COPY_REWRITTEN : EXIT_COPY_ORIGINAL,
				     .copy_required = mode == EXIT_REWRITE,
				     .returns = original_returns(mode) };
	return 0;
}

/* mixed: uretprobes only where no unwinder can walk through the frames
 * they hijack (it would abort the target); elsewhere exits are inferred
 * from the stack pointer, never single-stepped. */
struct object_exits exit_policy__object(const struct exit_policy *p, const struct elf_object *obj,
					enum exit_copy copy)
{
	struct object_exits e = { .copy = copy, .returns = p->returns };

	if (copy == EXIT_COPY_REWRITTEN) {
		e.returns = RETURNS_SLED; /* the exit sleds are nop5s there */
	} else if (p->returns == RETURNS_MIXED && elf_object__can_unwind(obj)) {
		e.returns = RETURNS_INFER;
		e.leaf_uretprobes = true;
	} else if (p->returns == RETURNS_MIXED) {
		e.returns = RETURNS_URETPROBE;
	}
	return e;
}
