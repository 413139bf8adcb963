/* SPDX-License-Identifier: MIT */
/* commands.h: the subcommands main() dispatches to, each an option table
 * and a run function (options.h). */
#ifndef SLEDTRACE_COMMANDS_H
#define SLEDTRACE_COMMANDS_H

#include "cli/options.h"

extern const struct cli_command cmd_record;
extern const struct cli_command cmd_list;
extern const struct cli_command cmd_report;
extern const struct cli_command cmd_convert;
extern const struct cli_command cmd_filter;
extern const struct cli_command cmd_diff;
extern const struct cli_command cmd_bench;

#endif
