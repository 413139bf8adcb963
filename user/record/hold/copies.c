// SPDX-License-Identifier: MIT
/* copies.c: see copies.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "object/xray_runtime.h"
#include "process/needed.h"
#include "process/proc_maps.h"
#include "process/sled_rewrite.h"
#include "record/hold/copies.h"

static void refuse(struct copies *c, const struct traced_object *o, const char *why)
{
	c->refused++;
	if (c->verbose)
		fprintf(stderr,
			"sledtrace: %s: no rewritten copy for later processes: %s; exits: "
			"uretprobe where safe, inferred elsewhere\n",
			o->path, why);
}

/* A linked XRay runtime is inert unless told to patch: it then writes its
 * own sleds over whatever bytes are there, and no probe of ours, rewritten
 * or not, would fire (record warns about it at the end). */
int copies__rewrite(const struct traced_object *o, enum xray_runtime runtime,
		    struct sled_rewrite **out, char *why, size_t whylen)
{
	if (runtime == XRAY_RUNTIME_PATCHES_PREMAIN) {
		snprintf(why, whylen,
			 "XRAY_OPTIONS tells the XRay runtime it links to patch "
			 "the sleds itself");
		return -ENOTSUP;
	}
	return sled_rewrite__new(o->elf, o->map, out, why, whylen);
}

static int make_one(struct traced_object *o, const char *xray_options, char *why, size_t whylen)
{
	struct sled_rewrite *rw;
	int err;

	err = copies__rewrite(o, xray_runtime__check(o->elf, xray_options), &rw, why, whylen);
	if (err)
		return err;
	err = ns_copy__new(sled_rewrite__fd(rw), &o->copy);
	sled_rewrite__free(rw);
	if (!err)
		err = ns_copy__stat(o->copy, &o->copy_dev, &o->copy_ino);
	if (err) {
		snprintf(why, whylen, "cannot make the copy: %s", strerror(-err));
		ns_copy__free(o->copy);
		o->copy = NULL;
		return err;
	}
	o->copy_dev = proc_maps__dev((dev_t)o->copy_dev);
	return 0;
}

void copies__make(struct copies *c, struct object_set *objs)
{
	char why[512];

	for (; c->offered < object_set__count(objs); c->offered++) {
		struct traced_object *o = object_set__get(objs, c->offered);

		if (c->ns_fd < 0 || o->rewritten || o->copy || !o->nselected)
			continue;
		if (make_one(o, c->xray_options, why, sizeof(why)))
			refuse(c, o, why);
	}
}

/* The file the process mapped, as stat sees it, for the helper to check
 * that the path in the namespace still names it. */
static int original_id(const struct traced_object *o, uint64_t *dev, uint64_t *ino)
{
	struct stat st;

	if (stat(o->open_path, &st))
		return -errno;
	*dev = st.st_dev;
	*ino = st.st_ino;
	return 0;
}

int copies__bind(struct copies *c, struct object_set *objs,
		 int (*mark)(void *ctx, uint64_t dev, uint64_t ino), void *ctx)
{
	for (size_t i = 0; i < object_set__count(objs); i++) {
		struct traced_object *o = object_set__get(objs, i);
		uint64_t dev = 0, ino = 0;
		int err;

		if (!o->copy || !o->copy_queued || o->copy_bound)
			continue;
		err = mark(ctx, o->copy_dev, o->copy_ino);
		if (err)
			return err;
		err = original_id(o, &dev, &ino);
		if (!err)
			err = ns_copy__bind(o->copy, c->ns_fd, o->path, dev, ino);
		if (err) {
			refuse(c, o,
			       err == -ESTALE ? "its path names another file in the command's "
						"namespace"
					      : strerror(-err));
			ns_copy__free(o->copy);
			o->copy = NULL;
			continue;
		}
		o->copy_bound = true;
		c->bound++;
		if (c->verbose)
			fprintf(stderr,
				"sledtrace: %s: rewritten copy bound in the command's namespace: "
				"processes that map it from now on run nop5 sleds, exact exits\n",
				o->path);
	}
	return 0;
}

void copies__abandon(struct copies *c, struct object_set *objs)
{
	for (size_t i = 0; i < object_set__count(objs); i++) {
		struct traced_object *o = object_set__get(objs, i);

		if (o->copy && !o->copy_bound) {
			refuse(c, o, "its probes could not be attached");
			ns_copy__free(o->copy);
			o->copy = NULL;
		}
	}
}

struct linked {
	struct copies *c;
	struct object_set *objs;
};

static int add_linked(const char *path, void *arg)
{
	struct linked *l = arg;
	char err[1024];
	struct stat st;
	int ret;

	/* Most are system libraries without sleds: look cheaply first. */
	if (xray_map__in_file(path) != 1 || stat(path, &st))
		return 0;
	ret = object_set__add(l->objs, path, path, proc_maps__dev(st.st_dev), st.st_ino, err,
			      sizeof(err));
	if (ret == -ENOMEM)
		return ret;
	if (ret < 0 && ret != -ENODATA && l->c->verbose)
		fprintf(stderr, "sledtrace: %s\n", err); /* found again at its hold */
	return 0;
}

int copies__add_linked(struct copies *c, struct object_set *objs, const char *exe,
		       const struct run_as *ra)
{
	struct linked l = { c, objs };
	int err = needed__each(exe, ra, add_linked, &l);

	if (err && err != -ENOMEM && c->verbose)
		fprintf(stderr,
			"sledtrace: %s: cannot list the objects it links (%s): they get "
			"copies when processes map them\n",
			exe, strerror(-err));
	return err == -ENOMEM ? err : 0;
}
