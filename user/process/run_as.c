// SPDX-License-Identifier: MIT
/* run_as.c: see run_as.h. */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "process/run_as.h"

static int parse_id(const char *s, unsigned *out)
{
	char *end;
	unsigned long v;

	if (!s || !*s)
		return -EINVAL;
	v = strtoul(s, &end, 10);
	if (*end || v >= (unsigned long)(unsigned)-1)
		return -EINVAL;
	*out = (unsigned)v;
	return 0;
}

int run_as__from_sudo(struct run_as *ra, char *err, size_t errlen)
{
	const char *suid = getenv("SUDO_UID"), *sgid = getenv("SUDO_GID");
	struct passwd *pw;
	unsigned uid, gid;

	memset(ra, 0, sizeof(*ra));
	if (geteuid() != 0 || !suid)
		return 0;
	if (parse_id(suid, &uid) || parse_id(sgid, &gid)) {
		snprintf(err, errlen,
			 "SUDO_UID/SUDO_GID (%s/%s) are not user and group ids "
			 "(pass --as-root to run the command as root)",
			 suid, sgid ? sgid : "unset");
		return -EINVAL;
	}
	if (uid == 0)
		return 0; /* sudo from root: nothing to give up */
	ra->uid = uid;
	ra->gid = gid;
	pw = getpwuid(uid);
	snprintf(ra->user, sizeof(ra->user), "%s",
		 pw ? pw->pw_name : (getenv("SUDO_USER") ? getenv("SUDO_USER") : ""));
	snprintf(ra->home, sizeof(ra->home), "%s", pw ? pw->pw_dir : "/");
	ra->ngroups = RUN_AS_MAX_GROUPS;
	if (!ra->user[0] || getgrouplist(ra->user, gid, ra->groups, &ra->ngroups) < 0) {
		ra->groups[0] = gid;
		ra->ngroups = 1;
	}
	ra->active = true;
	return 0;
}

int run_as__apply(const struct run_as *ra)
{
	if (!ra || !ra->active)
		return 0;
	if (setgroups((size_t)ra->ngroups, ra->groups) || setgid(ra->gid) || setuid(ra->uid))
		return -errno;
	if (setenv("HOME", ra->home, 1) ||
	    (ra->user[0] && (setenv("USER", ra->user, 1) || setenv("LOGNAME", ra->user, 1))))
		return -errno;
	return 0;
}
