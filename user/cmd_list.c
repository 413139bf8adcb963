/* cmd_list.c: placeholder until this command lands. */
#include <stdio.h>

#include "commands.h"

int cmd_list(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "sledtrace: list is not built yet\n");
	return 1;
}
