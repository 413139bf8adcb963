/* SPDX-License-Identifier: MIT */
/* commands.h: the subcommands main() dispatches to.  Each returns the
 * process exit status; each prints its own one-line errors. */
#ifndef SLEDTRACE_COMMANDS_H
#define SLEDTRACE_COMMANDS_H

int cmd_record(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_filter(int argc, char **argv);
int cmd_convert(int argc, char **argv);

#endif
