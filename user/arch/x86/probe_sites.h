/* SPDX-License-Identifier: MIT */
/* probe_sites.h: functions of sledtrace's own whose first instruction is
 * exactly what a recording's probes hit, for record to time one probe hit
 * on the machine (record/probe_calib.h).  Each comes with a plain twin of
 * the same bytes, never probed, that the timing subtracts.
 *   ARCH_SITE_REWRITTEN  nop5 (0f 1f 44 00 00): the first instruction of
 *                        every sled of a rewritten copy (entry, exit and
 *                        tail), which the kernel turns into a call
 *   ARCH_SITE_SLED       jmp +9 (eb 09) and a 9-byte nop: an original
 *                        XRay entry sled, whose jmp the kernel emulates */
#ifndef SLEDTRACE_X86_PROBE_SITES_H
#define SLEDTRACE_X86_PROBE_SITES_H

enum arch_site { ARCH_SITE_REWRITTEN, ARCH_SITE_SLED, ARCH_SITE_COUNT };

struct arch_site_fns {
	long (*probed)(long);
	long (*plain)(long);
};

struct arch_site_fns x86_probe_site(enum arch_site site);

#endif
