// SPDX-License-Identifier: MIT
/* cgr.c: see cgr.h.  Every function maps to an endpoint (path, bare
 * name, line) or to none (outside the repo, anonymous); endpoints merge
 * what code-graph-rag sees as one function (generic instances, overloads
 * with the same bare name on the same line).  Each calltree node then
 * adds its calls to the edge from its nearest endpoint ancestor. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/cgr.h"
#include "format/cgr_names.h"
#include "format/text_out.h"
#include "format/strtab.h"
#include "object/srcpath.h"
#include "util/u64map.h"

#define NO_EP UINT32_MAX

struct cgr_ep {
	char *path, *name;
	uint32_t line;
};

struct cgr {
	const struct calltree *ct;
	const char *root;
	size_t rootlen;
	struct strtab *keys; /* "path\tname\tline" -> endpoint index */
	struct cgr_ep *eps;
	size_t neps, cap;
	uint32_t *fn_ep;   /* by fid */
	uint32_t *node_ep; /* by node: nearest endpoint at or above */
	struct u64map edge_idx;
	uint64_t *edge_key, *edge_calls;
	size_t nedges, capedges;
	unsigned langs; /* bit per cgr_lang seen in the repo */
};

static bool under_root(const struct cgr *g, const char *path)
{
	return path && path[0] == '/' && !strncmp(path, g->root, g->rootlen) &&
	       (path[g->rootlen] == '/' || g->root[g->rootlen - 1] == '/');
}

/* Paths from srcloc are whole already; a trace of an older sledtrace may
 * still read /src/build/../lib/x.c, so a file is judged by where it really
 * is.  A path that does not fit is left empty: under no root. */
static void normalize(const char *in, char *out, size_t len)
{
	if (!in || snprintf(out, len, "%s", in) >= (int)len)
		out[0] = '\0';
	else
		srcpath__normalize(out);
}

static int endpoint(struct cgr *g, const struct trace_function *fn, uint32_t *out)
{
	enum cgr_lang lang = cgr_names__lang(fn->file);
	char name[512], path[PATH_MAX], key[PATH_MAX + 600];
	int64_t k;

	*out = NO_EP;
	normalize(fn->file, path, sizeof(path));
	if (!under_root(g, path) || cgr_names__bare(lang, fn->name, name, sizeof(name)) || !name[0])
		return 0;
	g->langs |= 1u << lang;
	snprintf(key, sizeof(key), "%s\t%s\t%u", path, name, fn->line);
	if ((k = strtab__intern(g->keys, key)) < 0)
		return (int)k;
	if ((size_t)k == g->neps) {
		if (g->neps == g->cap) {
			size_t cap = g->cap ? g->cap * 2 : 64;
			struct cgr_ep *v = realloc(g->eps, cap * sizeof(*v));

			if (!v)
				return -ENOMEM;
			g->eps = v;
			g->cap = cap;
		}
		g->eps[g->neps] = (struct cgr_ep){ strdup(path), strdup(name), fn->line };
		if (!g->eps[g->neps].path || !g->eps[g->neps].name) {
			free(g->eps[g->neps].path);
			free(g->eps[g->neps].name);
			return -ENOMEM;
		}
		g->neps++;
	}
	*out = (uint32_t)k;
	return 0;
}

static int add_edge(struct cgr *g, uint32_t from, uint32_t to, uint64_t calls)
{
	uint64_t key = ((uint64_t)from << 32 | to) + 1, idx;

	if (!u64map__get(&g->edge_idx, key, &idx)) {
		if (g->nedges == g->capedges) {
			size_t cap = g->capedges ? g->capedges * 2 : 64;
			uint64_t *k = realloc(g->edge_key, cap * sizeof(*k)), *c;

			if (!k)
				return -ENOMEM;
			g->edge_key = k;
			if (!(c = realloc(g->edge_calls, cap * sizeof(*c))))
				return -ENOMEM;
			g->edge_calls = c;
			g->capedges = cap;
		}
		if (u64map__put(&g->edge_idx, key, g->nedges))
			return -ENOMEM;
		idx = g->nedges++;
		g->edge_key[idx] = key - 1;
		g->edge_calls[idx] = 0;
	}
	g->edge_calls[idx] += calls;
	return 0;
}

static int collect(struct cgr *g)
{
	uint32_t max = calltree__max_fid(g->ct);
	size_t n = calltree__count(g->ct);
	int err;

	g->fn_ep = malloc(((size_t)max + 1) * sizeof(*g->fn_ep));
	g->node_ep = malloc(n * sizeof(*g->node_ep));
	if (!g->fn_ep || !g->node_ep)
		return -ENOMEM;
	for (uint32_t fid = 0; fid <= max; fid++) {
		const struct trace_function *fn = calltree__function(g->ct, fid);

		g->fn_ep[fid] = NO_EP;
		if (fn && (err = endpoint(g, fn, &g->fn_ep[fid])))
			return err;
	}
	g->node_ep[0] = NO_EP;
	for (size_t i = 1; i < n; i++) { /* parents come before children */
		const struct calltree_node *node = calltree__node(g->ct, i);
		uint32_t up = g->node_ep[node->parent];
		uint32_t ep = node->fid <= max ? g->fn_ep[node->fid] : NO_EP;

		if (node->fid == CALLTREE_ELIDED) /* callers unknown: nothing above */
			up = NO_EP;
		g->node_ep[i] = ep != NO_EP ? ep : up;
		if (ep != NO_EP && up != NO_EP && node->calls &&
		    (err = add_edge(g, up, ep, node->calls)))
			return err;
	}
	return 0;
}

static void put_ep(FILE *f, const struct cgr_ep *e)
{
	fputs("{\"path\":", f);
	text_out__json(f, e->path);
	fputs(",\"qualname\":", f);
	text_out__json(f, e->name);
	fprintf(f, ",\"line\":%" PRIu32 "}", e->line);
}

static void emit(const struct cgr *g, FILE *f)
{
	const char *lang = g->langs & (1u << CGR_RUST)	? "rust"
			   : g->langs & (1u << CGR_CPP) ? "cpp"
							: "c";

	fprintf(f, "{\"kind\":\"header\",\"version\":1,\"language\":\"%s\",\"repo_root\":", lang);
	text_out__json(f, g->root);
	fputs(",\"tracer\":\"sledtrace\",\"sampled\":false}\n", f);
	for (size_t i = 0; i < g->nedges; i++) {
		fputs("{\"kind\":\"call\",\"caller\":", f);
		put_ep(f, &g->eps[g->edge_key[i] >> 32]);
		fputs(",\"callee\":", f);
		put_ep(f, &g->eps[(uint32_t)g->edge_key[i]]);
		fprintf(f, ",\"count\":%" PRIu64 ",\"workloads\":[],\"receiver_types\":[]}\n",
			g->edge_calls[i]);
	}
}

int cgr__write(const struct calltree *ct, const char *repo_root, FILE *f)
{
	char root[PATH_MAX];
	struct cgr g = { .ct = ct, .root = root };
	int err = -ENOMEM;

	normalize(repo_root, root, sizeof(root));
	if (root[0] != '/')
		return -EINVAL;
	g.rootlen = strlen(root);
	if ((g.keys = strtab__new()) && !(err = collect(&g))) {
		emit(&g, f);
		err = ferror(f) ? -EIO : 0;
	}
	for (size_t i = 0; i < g.neps; i++) {
		free(g.eps[i].path);
		free(g.eps[i].name);
	}
	free(g.eps);
	free(g.fn_ep);
	free(g.node_ep);
	free(g.edge_key);
	free(g.edge_calls);
	u64map__clear(&g.edge_idx);
	strtab__free(g.keys);
	return err;
}
