// SPDX-License-Identifier: MIT
/* convert.c: see convert.h.  Two shapes of converter: tree formats read
 * the whole trace into a calltree (memory: distinct call paths) and write
 * it afterwards; stream formats (Chrome JSON, pola) are frame_sinks that
 * write while the trace is read.  Which shape each format has, and its
 * writer, is convert.h's table (CONVERT_FORMATS).  Either way the output is
 * an output_file, committed only when reading and writing both succeeded. */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

#include "analysis/convert.h"
#include "format/cgr.h"
#include "format/chrome_json.h"
#include "format/dot.h"
#include "format/flame_svg.h"
#include "format/perfetto/perfetto_reader.h"
#include "format/pola.h"
#include "format/pprof.h"
#include "format/stats_line.h"
#include "model/calltree.h"
#include "model/stitch.h"
#include "format/codec/gzout.h"
#include "util/output_file.h"

#define NAME(id, name, run, tree, flags, help) name,
const char *const convert_format_names[] = { CONVERT_FORMATS(NAME) NULL };

#define FLAGS(id, name, run, tree, flags, help) flags,
static const unsigned format_flags[] = { CONVERT_FORMATS(FLAGS) };

int convert__format(const char *name)
{
	for (int i = 0; i < CONVERT_NFORMATS; i++)
		if (!strcmp(name, convert_format_names[i]))
			return i;
	return -1;
}

unsigned convert__flags(enum convert_format to)
{
	return (unsigned)to < CONVERT_NFORMATS ? format_flags[to] : 0;
}

bool convert__sums_times(enum convert_format to, enum folded_weight weight)
{
	return (convert__flags(to) & CONVERT_SUMS_TIMES) &&
	       !(to == CONVERT_FOLDED && weight == FOLDED_CALLS);
}

/* ---- outputs ---- */

/* The first error: a (closing an output) wins over b. */
static int either(int a, int b)
{
	return a ? a : b;
}

struct out {
	struct output_file of;
	FILE *f;
};

/* Opens -o (output_file: "-" is standard output, a device is written
 * through, a file appears whole at commit) with a stdio stream on it. */
static int out_open(struct out *o, const char *path, char *err, size_t errlen)
{
	int fd, ret;

	memset(o, 0, sizeof(*o));
	o->of.fd = -1;
	if ((ret = output_file__create(&o->of, path ? path : "-", err, errlen)))
		return ret;
	fd = fcntl(o->of.fd, F_DUPFD_CLOEXEC, 0);
	if (fd < 0 || !(o->f = fdopen(fd, "w"))) {
		ret = -errno;
		if (fd >= 0)
			close(fd);
		output_file__abort(&o->of);
		snprintf(err, errlen, "cannot write %s: %s", o->of.path, strerror(-ret));
		return ret;
	}
	return 0;
}

/* Ends the output: commits it when ok, else drops it. */
static int out_close(struct out *o, bool ok, char *err, size_t errlen)
{
	int ret = 0;

	if (!o->f)
		return 0;
	if (fclose(o->f) && ok) {
		ret = -errno;
		snprintf(err, errlen, "cannot write %s: %s", o->of.path, strerror(-ret));
	}
	o->f = NULL;
	if (ok && !ret)
		ret = output_file__commit(&o->of, err, errlen);
	output_file__abort(&o->of);
	return ok ? ret : 0;
}

static void warn_lost(const struct trace_stats *st, char *warn, size_t warnlen)
{
	if (!stats_line__lost(st))
		return;
	snprintf(warn, warnlen,
		 "warning: the trace lost events (ringbuf_drops=%" PRIu64
		 " unmatched_exits=%" PRIu64 "): counts are lower bounds",
		 st->ringbuf_drops, st->unmatched_exits);
}

/* ---- tree formats ---- */

static int tree_folded(const struct convert_opts *o, const struct calltree *ct, FILE *f)
{
	return folded__write(ct, o->weight, f);
}

static int tree_pprof(const struct convert_opts *o, const struct calltree *ct, FILE *f)
{
	(void)o;
	return pprof__write(ct, f);
}

static int tree_dot(const struct convert_opts *o, const struct calltree *ct, FILE *f)
{
	(void)o;
	return dot__write(ct, f);
}

static int tree_svg(const struct convert_opts *o, const struct calltree *ct, FILE *f)
{
	struct flame_svg_opts so = { .width = o->svg_width, .min_width = o->svg_min_width };

	return flame_svg__write(ct, &so, f);
}

static int tree_cgr(const struct convert_opts *o, const struct calltree *ct, FILE *f)
{
	return cgr__write(ct, o->repo_root, f);
}

typedef int tree_writer(const struct convert_opts *o, const struct calltree *ct, FILE *f);

#define tree_none NULL
#define TREE(id, name, run, tree, flags, help) tree_##tree,
static tree_writer *const tree_writers[] = { CONVERT_FORMATS(TREE) };

/* --stitch's first read: the links of the frames that caused something. */
static int read_links(const struct convert_opts *o, struct stitch *st, char *err, size_t errlen)
{
	struct frame_sink sink = stitch__sink(st);

	return perfetto_reader__read(o->in, &sink, err, errlen);
}

static int run_tree(const struct convert_opts *o, char *err, size_t errlen, char *warn,
		    size_t warnlen)
{
	struct stitch *st = NULL;
	struct calltree *ct = NULL;
	struct frame_sink sink;
	struct out out = { 0 };
	int ret = convert__flags(o->to) & CONVERT_BY_THREAD ? calltree__new_by_thread(&ct)
							    : calltree__new(&ct);

	if (ret) {
		snprintf(err, errlen, "out of memory");
		return ret;
	}
	if (o->times == REPORT_TIMES_COMPENSATED && convert__sums_times(o->to, o->weight))
		calltree__compensate(ct);
	if (o->stitch && (ret = stitch__new(&st))) {
		snprintf(err, errlen, "out of memory");
		calltree__free(ct);
		return ret;
	}
	/* a bad -o fails before anything is read */
	if (!(ret = out_open(&out, o->out, err, errlen))) {
		if (st && !(ret = read_links(o, st, err, errlen)))
			calltree__stitch(ct, st);
		sink = calltree__sink(ct);
		if (!ret)
			ret = perfetto_reader__read(o->in, &sink, err, errlen);
		if (!ret && (ret = tree_writers[o->to](o, ct, out.f)))
			snprintf(err, errlen, "cannot write %s: %s", out.of.path, strerror(-ret));
		ret = either(out_close(&out, !ret, err, errlen), ret);
	}
	if (!ret)
		warn_lost(calltree__stats(ct), warn, warnlen);
	calltree__free(ct);
	stitch__free(st);
	return ret;
}

/* ---- stream formats ---- */

static int run_chrome(const struct convert_opts *o, char *err, size_t errlen, char *warn,
		      size_t warnlen)
{
	struct chrome_json *cj = NULL;
	struct frame_sink sink;
	struct out out;
	int ret = out_open(&out, o->out, err, errlen);

	if (ret)
		return ret;
	if ((ret = chrome_json__new(out.f, &cj))) {
		snprintf(err, errlen, "out of memory");
	} else {
		sink = chrome_json__sink(cj);
		ret = perfetto_reader__read(o->in, &sink, err, errlen);
		if (!ret)
			warn_lost(chrome_json__stats(cj), warn, warnlen);
	}
	ret = either(out_close(&out, !ret, err, errlen), ret);
	chrome_json__free(cj);
	return ret;
}

static int run_pola(const struct convert_opts *o, char *err, size_t errlen, char *warn,
		    size_t warnlen)
{
	struct out ev, sym = { 0 }, val = { 0 };
	struct pola *p = NULL;
	struct frame_sink sink;
	char symtab[4096], values[4096];
	int ret;

	sym.of.fd = val.of.fd = -1;
	snprintf(symtab, sizeof(symtab), "%s.symtab", o->out);
	snprintf(values, sizeof(values), "%s.values", o->out);
	if ((ret = out_open(&ev, o->out, err, errlen)))
		return ret;
	if ((ret = out_open(&sym, symtab, err, errlen)) ||
	    (ret = out_open(&val, values, err, errlen)))
		goto done;
	if ((ret = pola__new(ev.f, sym.f, val.f, &p))) {
		snprintf(err, errlen, "out of memory");
		goto done;
	}
	sink = pola__sink(p);
	ret = perfetto_reader__read(o->in, &sink, err, errlen);
	if (!ret && (ret = pola__error(p)))
		snprintf(err, errlen, "cannot write %s: %s", o->out, strerror(-ret));
	if (!ret)
		warn_lost(pola__stats(p), warn, warnlen);
done:
	ret = either(out_close(&val, !ret, err, errlen), ret);
	ret = either(out_close(&sym, !ret, err, errlen), ret);
	ret = either(out_close(&ev, !ret, err, errlen), ret);
	pola__free(p);
	return ret;
}

/* A gzip'd copy of a trace that reads back whole; zlib reads a trace
 * that is gzip'd already transparently, so it is not gzip'd twice. */
static int copy_gz(const char *in, FILE *out)
{
	gzFile src = gzopen(in, "rb");
	struct gzout *gz = NULL;
	char buf[64 << 10];
	int n = 0, ret;

	if (!src)
		return errno ? -errno : -ENOMEM;
	ret = gzout__new(byte_sink__file(out), 6, &gz);
	while (!ret && (n = gzread(src, buf, sizeof(buf))) > 0)
		ret = gzout__write(gz, buf, (size_t)n);
	if (!ret && n < 0)
		ret = -EIO;
	if (!ret)
		ret = gzout__finish(gz);
	gzout__free(gz);
	gzclose(src);
	return ret;
}

static int run_perfetto(const struct convert_opts *o, char *err, size_t errlen, char *warn,
			size_t warnlen)
{
	struct calltree *ct = NULL;
	struct frame_sink sink;
	struct out out = { 0 };
	int ret;

	/* It is read twice: through the reader first (a truncated or corrupt
	 * trace is refused), then copied. */
	if ((ret = calltree__new(&ct))) {
		snprintf(err, errlen, "out of memory");
		return ret;
	}
	sink = calltree__sink(ct);
	if (!(ret = out_open(&out, o->out, err, errlen))) {
		ret = perfetto_reader__read(o->in, &sink, err, errlen);
		if (!ret && (ret = copy_gz(o->in, out.f)))
			snprintf(err, errlen, "cannot write %s: %s", out.of.path, strerror(-ret));
		ret = either(out_close(&out, !ret, err, errlen), ret);
	}
	if (!ret)
		warn_lost(calltree__stats(ct), warn, warnlen);
	calltree__free(ct);
	return ret;
}

typedef int format_run(const struct convert_opts *o, char *err, size_t errlen, char *warn,
		       size_t warnlen);

#define RUN(id, name, run, tree, flags, help) run_##run,
static format_run *const format_runs[] = { CONVERT_FORMATS(RUN) };

/* What the command line must say for the format; "convert: " marks a
 * usage error (cmd_convert.c checks the same before calling). */
static int check_opts(const struct convert_opts *o, char *err, size_t errlen)
{
	const char *name = convert_format_names[o->to];
	unsigned flags = format_flags[o->to];

	if ((flags & CONVERT_FILES) && (!o->out || !strcmp(o->out, "-"))) {
		snprintf(err, errlen, "convert: --to=%s writes several files: give -o FILE", name);
		return -EINVAL;
	}
	if (o->stitch && !(flags & CONVERT_STITCHES)) {
		snprintf(err, errlen, "convert: --stitch is for --to=folded, pprof and svg");
		return -EINVAL;
	}
	if (o->stitch && !strcmp(o->in, "-")) {
		snprintf(err, errlen, "convert: --stitch needs a TRACE file, not standard input");
		return -EINVAL;
	}
	if ((flags & CONVERT_TRACE_FILE) && !strcmp(o->in, "-")) {
		snprintf(err, errlen, "convert: --to=%s needs a TRACE file, not standard input",
			 name);
		return -EINVAL;
	}
	if (o->to == CONVERT_CGR && (!o->repo_root || o->repo_root[0] != '/')) {
		snprintf(err, errlen, "convert: --to=cgr needs --repo-root ABSOLUTE_DIR");
		return -EINVAL;
	}
	return 0;
}

int convert__run(const struct convert_opts *o, char *err, size_t errlen, char *warn, size_t warnlen)
{
	int ret;

	if (warnlen)
		warn[0] = '\0';
	if (errlen)
		err[0] = '\0';
	if ((unsigned)o->to >= CONVERT_NFORMATS) {
		snprintf(err, errlen, "convert: no such format");
		return -EINVAL;
	}
	if ((ret = check_opts(o, err, errlen)))
		return ret;
	return format_runs[o->to](o, err, errlen, warn, warnlen);
}
