/* SPDX-License-Identifier: MIT */
/* probe_sites.h: a function of sledtrace's own whose first instruction is
 * exactly what a recording's probes hit on a rewritten copy, for record to
 * time one probe hit on the machine (record/probe_calib.h): nop5
 * (0f 1f 44 00 00), the first instruction of every sled of a rewritten
 * copy (entry, exit and tail), which the kernel turns into a call.  It
 * comes with a plain twin of the same bytes, never probed, that the
 * timing subtracts. */
#ifndef SLEDTRACE_X86_PROBE_SITES_H
#define SLEDTRACE_X86_PROBE_SITES_H

struct arch_site_fns {
	long (*probed)(long);
	long (*plain)(long);
};

struct arch_site_fns x86_probe_site(void);

#endif
