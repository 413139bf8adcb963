/* demangle.c: placeholder until this module lands. */
