/* SPDX-License-Identifier: MIT */
/* link_release.h: closing many BPF links without waiting for each.  Closing
 * a uprobe_multi link unregisters its probes and then waits for an RCU
 * grace period (20-75 ms here, seconds under load); links closed from
 * parallel threads share the waits, and links handed to a helper process
 * are torn down after the caller has moved on. */
#ifndef SLEDTRACE_LINK_RELEASE_H
#define SLEDTRACE_LINK_RELEASE_H

#include <stddef.h>

struct bpf_link;

/* Destroys every link, from up to 16 threads. */
void link_release__parallel(struct bpf_link **links, size_t n);
/* Destroys every link, and closes extra_fd (another link's descriptor, or
 * -1), in a forked helper that holds the last references and exits on its
 * own; the caller's copies are closed at once and the bpf_link objects
 * freed.  Only for links whose probes nothing can hit any
 * more (the traced processes are gone) and that are fds alone
 * (uprobe_multi, not perf-event links).  On failure (no fork) nothing is
 * released and a negative errno is returned. */
int link_release__background(struct bpf_link **links, size_t n, const int *extra, size_t nextra);

#endif
