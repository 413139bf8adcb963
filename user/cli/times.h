/* SPDX-License-Identifier: MIT */
/* times.h: the --times option of report, diff and convert, defined once:
 * one spelling, one help text, one default (docs/DESIGN.md, "Probe cost"). */
#ifndef SLEDTRACE_CLI_TIMES_H
#define SLEDTRACE_CLI_TIMES_H

#include "analysis/report.h"
#include "cli/options.h"

/* The field is an enum report_times; a command's init() sets it to
 * CLI_TIMES_DEFAULT (the parser's settings start zeroed, which is raw). */
#define CLI_TIMES(type, field)                                                               \
	CLI_ENUM(0, "times", type, field, report_times_names, "KIND", "compensated",         \
		 "every call's times less the probe cost calibrated from the run for every " \
		 "probe hit inside it, or raw: as measured")
#define CLI_TIMES_DEFAULT REPORT_TIMES_COMPENSATED

#endif
