/* SPDX-License-Identifier: MIT */
/* run_as.h: `sudo sledtrace record -- CMD` runs CMD as the user who typed
 * sudo (SUDO_UID, SUDO_GID, their supplementary groups, HOME, USER and
 * LOGNAME), as one expects from a tool that needs root only for itself.
 * Everything is looked up before the fork; the child only makes syscalls. */
#ifndef SLEDTRACE_RUN_AS_H
#define SLEDTRACE_RUN_AS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define RUN_AS_MAX_GROUPS 256

struct run_as {
	bool active; /* false: the command keeps sledtrace's identity */
	uid_t uid;
	gid_t gid;
	gid_t groups[RUN_AS_MAX_GROUPS];
	int ngroups;
	char user[256];
	char home[4096];
};

/* Fills ra from SUDO_UID/SUDO_GID when sledtrace runs as root under sudo;
 * leaves it inactive otherwise.  -EINVAL with err for unusable values. */
int run_as__from_sudo(struct run_as *ra, char *err, size_t errlen);
/* In the child, before exec: groups, gid, uid, environment.  -errno. */
int run_as__apply(const struct run_as *ra);

#endif
