/* SPDX-License-Identifier: MIT */
/* params.h: a function's parameters and return type from DWARF (libdw), as
 * the integer registers of its entry and its return hold them, in the
 * order of the calling convention the caller describes (struct param_abi:
 * the architecture knows it, arch_param_abi).  What cannot be had is
 * marked: floating-point values (in registers of their own), aggregates
 * (structs, unions, classes: in memory or split by rules the DWARF does
 * not say), parameters beyond the last argument register, and every
 * parameter after the first one whose place is uncertain. */
#ifndef SLEDTRACE_PARAMS_H
#define SLEDTRACE_PARAMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "object/elf_object.h"

enum param_type {
	PARAM_NONE = 0, /* not in a register sledtrace reads */
	PARAM_INT,	/* signed integer of `size` bytes */
	PARAM_UINT,	/* unsigned integer, a character */
	PARAM_BOOL,
	PARAM_ENUM,    /* shown by its enumerators' names */
	PARAM_POINTER, /* shown in hex */
	PARAM_CSTRING, /* char *: a NUL-terminated string */
	PARAM_STR,     /* Rust &str: pointer and length, two registers */
	PARAM_BYTES,   /* Rust &[u8]: pointer and length, two registers */
};

struct param_enumerator {
	char *name;
	int64_t value;
};

/* The calling convention's integer class, as far as placing parameters
 * needs it. */
struct param_abi {
	uint8_t arg_regs; /* integer argument registers, taken in order */
	uint8_t ret_regs; /* integer return registers (each 8 bytes) */
	bool ret_in_arg;  /* a value returned in memory takes the first argument register */
};

struct param {
	char *name;
	enum param_type type;
	uint8_t size;	    /* bytes of an integer, bool or enum */
	bool enum_unsigned; /* an enum whose underlying type is unsigned */
	int8_t reg;	    /* its (first) register: from 0 at entry, 0 at return; -1: none */
	const char *why;    /* PARAM_NONE: why not (static text) */
	struct param_enumerator *enums;
	size_t nenums;
};

struct params {
	bool found; /* DWARF describes the function */
	struct param *args;
	size_t nargs;
	struct param ret; /* PARAM_NONE for void */
};

struct param_reader;

/* Never fails hard: an object without DWARF gives a reader that finds
 * nothing.  NULL only without memory. */
struct param_reader *param_reader__open(const struct elf_object *obj);
void param_reader__free(struct param_reader *pr);
/* The function at addr (an ELF virtual address, its first instruction),
 * its parameters placed as abi says.  Returns 0 (out->found false when
 * DWARF has no such function) or -ENOMEM. */
int param_reader__read(struct param_reader *pr, uint64_t addr, const struct param_abi *abi,
		       struct params *out);
void params__free(struct params *p);

#endif
