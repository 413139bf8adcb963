// SPDX-License-Identifier: MIT
/* params.c: see params.h.  The DWARF of the object itself, or of the
 * separate debug file a stripped object took its symbols from (Debian's
 * -dbgsym packages: symbols and DWARF together).  A function is found by its entry address in
 * the unit that covers it; its parameters are its formal_parameter
 * children, through abstract_origin (an out-of-line copy of an inline
 * function) and specification (a C++ member defined outside its class). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>
#include <elfutils/libdw.h>

#include "object/params.h"

struct param_reader {
	Dwarf *dbg; /* NULL: no DWARF */
};

struct param_reader *param_reader__open(const struct elf_object *obj)
{
	struct param_reader *pr = calloc(1, sizeof(*pr));
	const struct elf_object *debug = elf_object__debug_file(obj);

	if (pr && elf_object__elf(obj))
		pr->dbg = dwarf_begin_elf(elf_object__elf(obj), DWARF_C_READ, NULL);
	if (pr && !pr->dbg && debug && elf_object__elf(debug))
		pr->dbg = dwarf_begin_elf(elf_object__elf(debug), DWARF_C_READ, NULL);
	return pr;
}

void param_reader__free(struct param_reader *pr)
{
	if (!pr)
		return;
	if (pr->dbg)
		dwarf_end(pr->dbg);
	free(pr);
}

void params__free(struct params *p)
{
	struct param *all[2] = { p->args, &p->ret };
	size_t counts[2] = { p->nargs, 1 };

	for (int k = 0; k < 2; k++)
		for (size_t i = 0; all[k] && i < counts[k]; i++) {
			for (size_t e = 0; e < all[k][i].nenums; e++)
				free(all[k][i].enums[e].name);
			free(all[k][i].enums);
			free(all[k][i].name);
		}
	free(p->args);
	*p = (struct params){ 0 };
}

struct find {
	uint64_t addr;
	Dwarf_Die die;
	bool found;
};

static int match_func(Dwarf_Die *die, void *arg)
{
	struct find *f = arg;
	Dwarf_Addr lo;

	if (dwarf_lowpc(die, &lo) || lo != f->addr)
		return DWARF_CB_OK;
	f->die = *die;
	f->found = true;
	return DWARF_CB_ABORT;
}

/* die's type with typedefs and qualifiers peeled; false for void. */
static bool type_of(Dwarf_Die *die, Dwarf_Die *type)
{
	Dwarf_Attribute attr;

	if (!dwarf_attr_integrate(die, DW_AT_type, &attr) || !dwarf_formref_die(&attr, type))
		return false;
	return dwarf_peel_type(type, type) == 0;
}

static bool is_char(Dwarf_Die *type)
{
	Dwarf_Attribute attr;
	Dwarf_Word enc;

	if (dwarf_tag(type) != DW_TAG_base_type || dwarf_bytesize(type) != 1 ||
	    dwarf_formudata(dwarf_attr(type, DW_AT_encoding, &attr), &enc))
		return false;
	return enc == DW_ATE_signed_char || enc == DW_ATE_unsigned_char;
}

static int read_enums(Dwarf_Die *type, struct param *p)
{
	Dwarf_Die child;
	Dwarf_Attribute attr;
	Dwarf_Sword v;

	if (dwarf_child(type, &child))
		return 0;
	do {
		struct param_enumerator *e;

		if (dwarf_tag(&child) != DW_TAG_enumerator || !dwarf_diename(&child) ||
		    dwarf_formsdata(dwarf_attr(&child, DW_AT_const_value, &attr), &v))
			continue;
		if (!(e = realloc(p->enums, (p->nenums + 1) * sizeof(*e))))
			return -ENOMEM;
		p->enums = e;
		e[p->nenums].value = v;
		if (!(e[p->nenums].name = strdup(dwarf_diename(&child))))
			return -ENOMEM;
		p->nenums++;
	} while (dwarf_siblingof(&child, &child) == 0);
	return 0;
}

/* Rust's &str and &[u8]: a pair {data_ptr, length} named so. */
static enum param_type rust_pair(Dwarf_Die *type)
{
	const char *name = dwarf_diename(type);

	if (!name)
		return PARAM_NONE;
	if (!strcmp(name, "&str") || !strcmp(name, "&mut str"))
		return PARAM_STR;
	if (!strcmp(name, "&[u8]") || !strcmp(name, "&mut [u8]"))
		return PARAM_BYTES;
	return PARAM_NONE;
}

/* How many integer registers the type takes: 0 for a floating-point
 * value, -1 when its place is uncertain (an aggregate sledtrace does not
 * know, a 16-byte integer); p gets its type. */
static int classify(Dwarf_Die *type, struct param *p)
{
	Dwarf_Attribute attr;
	Dwarf_Word enc = 0;
	int size = dwarf_bytesize(type);

	switch (dwarf_tag(type)) {
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type: {
		Dwarf_Die to;

		p->type = type_of(type, &to) && is_char(&to) ? PARAM_CSTRING : PARAM_POINTER;
		return 1;
	}
	case DW_TAG_enumeration_type: {
		Dwarf_Die under;

		if (type_of(type, &under) &&
		    !dwarf_formudata(dwarf_attr(&under, DW_AT_encoding, &attr), &enc))
			p->enum_unsigned = enc == DW_ATE_unsigned || enc == DW_ATE_unsigned_char;
		p->type = PARAM_ENUM;
		p->size = (uint8_t)(size > 0 && size <= 8 ? size : 8);
		return read_enums(type, p) ? -ENOMEM : 1;
	}
	case DW_TAG_structure_type:
		if ((p->type = rust_pair(type)) != PARAM_NONE)
			return 2;
		p->why = "an aggregate";
		return -1;
	case DW_TAG_base_type:
		break;
	default:
		p->why = "an aggregate";
		return -1;
	}
	dwarf_formudata(dwarf_attr(type, DW_AT_encoding, &attr), &enc);
	if (enc == DW_ATE_float || enc == DW_ATE_complex_float) {
		p->why = "floating-point";
		return 0;
	}
	if (size <= 0 || size > 8) {
		p->why = "wider than a register";
		return -1;
	}
	p->size = (uint8_t)size;
	p->type = enc == DW_ATE_boolean				      ? PARAM_BOOL
		  : enc == DW_ATE_signed || enc == DW_ATE_signed_char ? PARAM_INT
								      : PARAM_UINT;
	return 1;
}

static int add_arg(const struct param_abi *abi, struct params *out, Dwarf_Die *die, int *next,
		   bool *lost)
{
	struct param p = { .reg = -1, .why = "after an argument whose place is uncertain" };
	struct param *v;
	Dwarf_Attribute attr;
	const char *name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &attr));
	Dwarf_Die type;
	int n = 0;

	if (!(v = realloc(out->args, (out->nargs + 1) * sizeof(*v))))
		return -ENOMEM;
	out->args = v;
	if (!(p.name = strdup(name ? name : "?")))
		return -ENOMEM;
	if (!*lost) {
		n = type_of(die, &type) ? classify(&type, &p) : (p.why = "of no type", -1);
		if (n == -ENOMEM) {
			out->args[out->nargs++] = p;
			return -ENOMEM;
		}
		if (n < 0)
			*lost = true;
		else if (n > 0 && *next + n > abi->arg_regs)
			p.why = "beyond the last argument register", *next = abi->arg_regs;
		else if (n > 0)
			p.reg = (int8_t)*next, *next += n;
	}
	if (p.reg < 0)
		p.type = PARAM_NONE;
	out->args[out->nargs++] = p;
	return 0;
}

/* The return value: what the first return register (and the second, for
 * a pair) holds.  An aggregate too large for them is returned in memory;
 * where its address is a hidden first argument, every argument moves one
 * register on: then none is placed. */
static int read_ret(const struct param_abi *abi, Dwarf_Die *fn, struct params *out, bool *lost)
{
	struct param *r = &out->ret;
	Dwarf_Die type;
	int n;

	*r = (struct param){ .reg = -1, .why = "void" };
	if (!(r->name = strdup("return")))
		return -ENOMEM;
	if (!type_of(fn, &type))
		return 0;
	n = classify(&type, r);
	if (n == -ENOMEM)
		return n;
	if (n < 0 && abi->ret_in_arg && dwarf_bytesize(&type) > 8 * abi->ret_regs)
		*lost = true;
	if (n > 0)
		r->reg = 0;
	else
		r->type = PARAM_NONE;
	return 0;
}

/* LLVM marks a function whose signature it changed (dead arguments
 * removed) DW_CC_nocall: its registers no longer follow the DWARF. */
static bool changed_convention(Dwarf_Die *fn)
{
	Dwarf_Attribute attr;
	Dwarf_Word cc;

	return !dwarf_formudata(dwarf_attr_integrate(fn, DW_AT_calling_convention, &attr), &cc) &&
	       cc == DW_CC_nocall;
}

/* The unit whose ranges hold addr.  Not dwarf_addrdie: clang writes no
 * .debug_aranges unless asked. */
static bool unit_at(Dwarf *dbg, uint64_t addr, Dwarf_Die *cu)
{
	Dwarf_CU *next = NULL;
	Dwarf_Half version;
	uint8_t unit_type;
	Dwarf_Die sub;

	while (dwarf_get_units(dbg, next, &next, &version, &unit_type, cu, &sub) == 0) {
		if (unit_type == DW_UT_skeleton)
			*cu = sub;
		if (dwarf_haspc(cu, addr) > 0)
			return true;
	}
	return false;
}

int param_reader__read(struct param_reader *pr, uint64_t addr, const struct param_abi *abi,
		       struct params *out)
{
	struct find f = { .addr = addr };
	Dwarf_Die cu, child;
	bool lost = false;
	int next = 0, err;

	*out = (struct params){ 0 };
	if (!pr->dbg || !unit_at(pr->dbg, addr, &cu))
		return 0;
	dwarf_getfuncs(&cu, match_func, &f, 0);
	if (!f.found)
		return 0;
	out->found = true;
	lost = changed_convention(&f.die);
	if ((err = read_ret(abi, &f.die, out, &lost)))
		return err;
	if (dwarf_child(&f.die, &child))
		return 0;
	do {
		if (dwarf_tag(&child) == DW_TAG_formal_parameter &&
		    (err = add_arg(abi, out, &child, &next, &lost)))
			return err;
	} while (dwarf_siblingof(&child, &child) == 0);
	return 0;
}
