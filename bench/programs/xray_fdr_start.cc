// SPDX-License-Identifier: MIT
/* xray_fdr_start.cc: linked into the bench's XRay-runtime builds.  LLVM's
 * flight-data-recorder mode cannot be started from XRAY_OPTIONS alone (it
 * is selected but never initialised), so with BENCH_XRAY_FDR set this
 * starts it before main and writes its log at exit, as a program using
 * XRay FDR would. */
#include <cstdio>
#include <cstdlib>
#include <xray/xray_interface.h>
#include <xray/xray_log_interface.h>

__attribute__((constructor, xray_never_instrument)) static void fdr_start(void)
{
	if (!getenv("BENCH_XRAY_FDR"))
		return;
	XRayLogInitStatus st;

	/* Without selecting first, LLVM 14's init returns UNINITIALIZED. */
	__xray_log_select_mode("xray-fdr");
	st = __xray_log_init_mode("xray-fdr", "");

	if (st != XRAY_LOG_INITIALIZED)
		fprintf(stderr, "xray_fdr_start: cannot start FDR mode (status %d)\n", (int)st);
	__xray_patch();
}

__attribute__((destructor, xray_never_instrument)) static void fdr_stop(void)
{
	if (!getenv("BENCH_XRAY_FDR"))
		return;
	__xray_log_finalize();
	__xray_log_flushLog();
}
