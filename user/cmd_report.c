/* cmd_report.c: placeholder until this command lands. */
#include <stdio.h>

#include "commands.h"

int cmd_report(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "sledtrace: report is not built yet\n");
	return 1;
}
