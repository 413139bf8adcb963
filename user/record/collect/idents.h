/* SPDX-License-Identifier: MIT */
/* idents.h: thread names and process command lines as the kernel reported
 * them (SLED_KIND_IDENT), kept until the thread or process is gone, so
 * that one that ended before the collector saw it is still named right.
 * Keyed by (tgid, tid): a reused tid is renamed by its creation record. */
#ifndef SLEDTRACE_IDENTS_H
#define SLEDTRACE_IDENTS_H

#include <stdbool.h>
#include <stdint.h>

#include "sledtrace.h"

struct idents;

int idents__new(struct idents **out);
void idents__free(struct idents *ids);
/* Records what id says; negative errno only when out of memory. */
int idents__update(struct idents *ids, const struct sled_ident *id);
/* What /proc says of a thread that existed before the attach (cmdline may
 * be NULL). */
int idents__seed(struct idents *ids, uint32_t tgid, uint32_t tid, const char *comm,
		 const char *cmdline);
/* A forked child runs its parent's command line until it execs. */
int idents__inherit(struct idents *ids, uint32_t child, uint32_t parent);
/* The thread is gone, and with last its process. */
void idents__gone(struct idents *ids, uint32_t tgid, uint32_t tid, bool last);
/* NULL when the kernel did not say. */
const char *idents__thread_name(const struct idents *ids, uint32_t tgid, uint32_t tid);
const char *idents__process_name(const struct idents *ids, uint32_t tgid);
const char *idents__cmdline(const struct idents *ids, uint32_t tgid);

#endif
