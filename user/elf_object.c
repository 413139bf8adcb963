/* elf_object.c: placeholder until this module lands. */
