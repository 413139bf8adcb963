/* output_file.c: placeholder until this module lands. */
