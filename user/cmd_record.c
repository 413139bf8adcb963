/* cmd_record.c: placeholder until this command lands. */
#include <stdio.h>

#include "commands.h"

int cmd_record(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "sledtrace: record is not built yet\n");
	return 1;
}
