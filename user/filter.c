/* filter.c: placeholder until this module lands. */
