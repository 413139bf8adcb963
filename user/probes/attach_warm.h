/* SPDX-License-Identifier: MIT */
/* attach_warm.h: takes the first uprobe registration's wait out of
 * `attach`.  Registering a uprobe takes a machine-wide lock for writing
 * (the one fork() reads); its first writer after a quiet spell waits a
 * full RCU grace period (6-30 ms here), later writers in quick succession
 * do not.  A helper process registers throwaway probes (on a memfd that
 * nothing runs) while sledtrace opens the target and loads, so that its attach
 * finds the lock already switched. */
#ifndef SLEDTRACE_ATTACH_WARM_H
#define SLEDTRACE_ATTACH_WARM_H

struct attach_warm;

/* Forks the helper; it closes every descriptor but its pipe.  Failure to
 * start is no error: attach is slower, nothing else changes. */
struct attach_warm *attach_warm__start(void);
/* Tells the helper to stop and returns at once: the helper's own probes
 * are torn down (another grace period) in the helper, not here.  It also
 * stops by itself after a few seconds or when sledtrace dies. */
void attach_warm__stop(struct attach_warm *w);

#endif
