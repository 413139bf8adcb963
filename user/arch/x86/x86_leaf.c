// SPDX-License-Identifier: MIT
/* x86_leaf.c: see x86_leaf.h.  Instruction lengths in 64-bit mode from
 * the opcode maps: prefixes, REX, VEX/EVEX, the one-byte, 0F, 0F38 and 0F3A
 * maps, ModRM/SIB/displacement and immediates.  Rare encodings the
 * compilers we care about do not emit are "unknown", which only ever costs
 * a cheaper exit probe, never safety. */
#include <string.h>

#include "arch/x86/x86_leaf.h"

enum { IMM_NONE, IMM8, IMM16, IMM32, IMMZ /* 16 or 32 by operand size */ };

struct insn {
	size_t len;
	uint8_t map; /* 1: one-byte, 2: 0F, 3: 0F38, 4: 0F3A */
	uint8_t op;
	uint8_t modrm; /* valid when has_modrm */
	bool has_modrm;
	bool opsize16; /* 66 prefix */
	bool rex_w;
	int32_t rel; /* relative branch displacement, when is_rel */
	bool is_rel;
};

static bool is_legacy_prefix(uint8_t b)
{
	return b == 0x66 || b == 0x67 || b == 0xf0 || b == 0xf2 || b == 0xf3 || b == 0x2e ||
	       b == 0x36 || b == 0x3e || b == 0x26 || b == 0x64 || b == 0x65;
}

/* One-byte map: -1 invalid, else bit0 = ModRM, bits 1.. = immediate kind. */
static int one_byte_form(uint8_t op)
{
	if (op < 0x40) {
		switch (op & 7) {
		case 0:
		case 1:
		case 2:
		case 3:
			return 1;
		case 4:
			return IMM8 << 1;
		case 5:
			return IMMZ << 1;
		default:
			return -1; /* prefixes, 0F and 32-bit-only opcodes */
		}
	}
	if (op >= 0x50 && op <= 0x5f)
		return 0;
	if (op >= 0x70 && op <= 0x7f)
		return IMM8 << 1; /* jcc rel8 */
	if (op >= 0x91 && op <= 0x99)
		return 0;
	if (op >= 0xb0 && op <= 0xb7)
		return IMM8 << 1;
	if (op >= 0xb8 && op <= 0xbf)
		return IMMZ << 1; /* imm64 with REX.W: decode() widens it */
	if (op >= 0xd8 && op <= 0xdf)
		return 1; /* x87 */
	switch (op) {
	case 0x63:
	case 0x84:
	case 0x85:
	case 0x86:
	case 0x87:
	case 0x88:
	case 0x89:
	case 0x8a:
	case 0x8b:
	case 0x8c:
	case 0x8d:
	case 0x8e:
	case 0x8f:
	case 0xd0:
	case 0xd1:
	case 0xd2:
	case 0xd3:
	case 0xfe:
	case 0xff:
	case 0xf6:
	case 0xf7:
		return 1;
	case 0x69:
	case 0x81:
	case 0xc7:
		return 1 | IMMZ << 1;
	case 0x6b:
	case 0x80:
	case 0x83:
	case 0xc0:
	case 0xc1:
	case 0xc6:
		return 1 | IMM8 << 1;
	case 0x68:
	case 0xa9:
	case 0xe8:
	case 0xe9:
		return IMMZ << 1;
	case 0x6a:
	case 0xa8:
	case 0xcd:
	case 0xeb:
	case 0xe0:
	case 0xe1:
	case 0xe2:
	case 0xe3:
	case 0xe4:
	case 0xe5:
	case 0xe6:
	case 0xe7:
		return IMM8 << 1;
	case 0xc2:
	case 0xca:
		return IMM16 << 1;
	case 0x90:
	case 0x9b:
	case 0x9c:
	case 0x9d:
	case 0x9e:
	case 0x9f:
	case 0xa4:
	case 0xa5:
	case 0xa6:
	case 0xa7:
	case 0xaa:
	case 0xab:
	case 0xac:
	case 0xad:
	case 0xae:
	case 0xaf:
	case 0xc3:
	case 0xc9:
	case 0xcb:
	case 0xcc:
	case 0xcf:
	case 0xd7:
	case 0xec:
	case 0xed:
	case 0xee:
	case 0xef:
	case 0xf1:
	case 0xf4:
	case 0xf5:
	case 0xf8:
	case 0xf9:
	case 0xfa:
	case 0xfb:
	case 0xfc:
	case 0xfd:
	case 0x6c:
	case 0x6d:
	case 0x6e:
	case 0x6f:
		return 0;
	default:
		return -1;
	}
}

/* 0F map, same encoding as one_byte_form. */
static int two_byte_form(uint8_t op)
{
	if (op >= 0x80 && op <= 0x8f)
		return IMM32 << 1; /* jcc rel32 */
	if (op >= 0xc8 && op <= 0xcf)
		return 0; /* bswap */
	switch (op) {
	case 0x05:
	case 0x06:
	case 0x07:
	case 0x08:
	case 0x09:
	case 0x0b:
	case 0x30:
	case 0x31:
	case 0x32:
	case 0x33:
	case 0x77:
	case 0xa0:
	case 0xa1:
	case 0xa2:
	case 0xa8:
	case 0xa9:
		return 0;
	case 0x70:
	case 0x71:
	case 0x72:
	case 0x73:
	case 0xa4:
	case 0xac:
	case 0xba:
	case 0xc2:
	case 0xc4:
	case 0xc5:
	case 0xc6:
		return 1 | IMM8 << 1;
	case 0x04:
	case 0x0a:
	case 0x0c:
	case 0x0e:
	case 0x0f:
	case 0x24:
	case 0x25:
	case 0x26:
	case 0x27:
	case 0x34:
	case 0x35:
	case 0x36:
	case 0x37:
	case 0x38:
	case 0x39:
	case 0x3a:
	case 0x3b:
	case 0x3c:
	case 0x3d:
	case 0x3e:
	case 0x3f:
	case 0x78:
	case 0x79:
	case 0x7a:
	case 0x7b:
	case 0xa6:
	case 0xa7:
	case 0xaa:
	case 0xff:
		return -1; /* escapes, 3DNow!, SSE4a immediates, rare system opcodes */
	default:
		return 1;
	}
}

static size_t imm_size(int kind, const struct insn *in)
{
	switch (kind) {
	case IMM8:
		return 1;
	case IMM16:
		return 2;
	case IMM32:
		return 4;
	case IMMZ:
		return in->opsize16 && in->op != 0xe8 && in->op != 0xe9 ? 2 : 4;
	default:
		return 0;
	}
}

/* Bytes of ModRM, SIB and displacement at p. */
static size_t modrm_length(const uint8_t *p, size_t avail)
{
	uint8_t mod = p[0] >> 6, rm = p[0] & 7;
	size_t n = 1;

	if (mod == 3)
		return 1;
	if (rm == 4) {
		if (avail < 2)
			return 0;
		n++;
		if (mod == 0 && (p[1] & 7) == 5)
			n += 4;
	} else if (mod == 0 && rm == 5) {
		n += 4; /* RIP-relative */
	}
	if (mod == 1)
		n += 1;
	else if (mod == 2)
		n += 4;
	return n;
}

/* VEX (C4/C5) and EVEX (62): map and payload length; all take ModRM except
 * vzeroupper/vzeroall. */
static size_t vex_prefix(const uint8_t *p, size_t avail, struct insn *in)
{
	if (p[0] == 0xc5) {
		in->map = 2;
		return avail >= 2 ? 2 : 0;
	}
	if (avail < 4)
		return 0;
	in->map = (uint8_t)(1 + (p[1] & (p[0] == 0x62 ? 0x07 : 0x1f)));
	if (in->map < 2 || in->map > 4)
		return 0;
	in->rex_w = p[2] >> 7;
	return p[0] == 0x62 ? 4 : 3;
}

static int vex_form(const struct insn *in)
{
	if (in->map == 4)
		return 1 | IMM8 << 1;
	if (in->map == 3)
		return 1;
	if (in->op == 0x77)
		return 0;
	return two_byte_form(in->op) == (1 | IMM8 << 1) ? (1 | IMM8 << 1) : 1;
}

static size_t opcode(const uint8_t *p, size_t avail, struct insn *in, int *form)
{
	if (p[0] != 0x0f) {
		in->map = 1;
		in->op = p[0];
		*form = one_byte_form(p[0]);
		return 1;
	}
	if (avail < 2)
		return 0;
	if (p[1] == 0x38 || p[1] == 0x3a) {
		if (avail < 3)
			return 0;
		in->map = p[1] == 0x38 ? 3 : 4;
		in->op = p[2];
		*form = p[1] == 0x38 ? 1 : (1 | IMM8 << 1);
		return 3;
	}
	in->map = 2;
	in->op = p[1];
	*form = two_byte_form(p[1]);
	return 2;
}

static size_t decode(const uint8_t *code, size_t avail, struct insn *in)
{
	size_t n = 0, k;
	int form;

	memset(in, 0, sizeof(*in));
	while (n < avail && n < 14 && is_legacy_prefix(code[n]))
		in->opsize16 |= code[n++] == 0x66;
	if (n < avail && (code[n] & 0xf0) == 0x40)
		in->rex_w = (code[n++] >> 3) & 1;
	if (n >= avail)
		return 0;
	if (code[n] == 0xc4 || code[n] == 0xc5 || code[n] == 0x62) {
		k = vex_prefix(code + n, avail - n, in);
		if (!k || n + k >= avail)
			return 0;
		n += k;
		in->op = code[n++];
		form = vex_form(in);
	} else {
		k = opcode(code + n, avail - n, in, &form);
		if (!k)
			return 0;
		n += k;
	}
	if (form < 0 || n > avail)
		return 0;
	if (form & 1) {
		if (n >= avail || !(k = modrm_length(code + n, avail - n)))
			return 0;
		in->has_modrm = true;
		in->modrm = code[n];
		n += k;
	}
	k = imm_size(form >> 1, in);
	if (in->map == 1 && in->op == 0xf6 && ((in->modrm >> 3) & 7) < 2)
		k = 1; /* test r/m8, imm8 */
	if (in->map == 1 && in->op == 0xf7 && ((in->modrm >> 3) & 7) < 2)
		k = in->opsize16 ? 2 : 4;
	if (in->map == 1 && in->op >= 0xb8 && in->op <= 0xbf)
		k = in->rex_w ? 8 : (in->opsize16 ? 2 : 4);
	if (in->map == 1 && in->op >= 0xa0 && in->op <= 0xa3)
		return 0; /* moffs: never emitted for us; avoid guessing */
	if (n + k > avail)
		return 0;
	in->is_rel = (in->map == 1 &&
		      (in->op == 0xe8 || in->op == 0xe9 || in->op == 0xeb ||
		       (in->op >= 0x70 && in->op <= 0x7f) || (in->op >= 0xe0 && in->op <= 0xe3))) ||
		     (in->map == 2 && in->op >= 0x80 && in->op <= 0x8f);
	if (in->is_rel)
		in->rel = k == 1 ? (int8_t)code[n]
				 : (int32_t)(code[n] | code[n + 1] << 8 | code[n + 2] << 16 |
					     (uint32_t)code[n + 3] << 24);
	in->len = n + k;
	return in->len;
}

size_t x86_insn_length(const uint8_t *code, size_t avail)
{
	struct insn in;

	return decode(code, avail, &in);
}

/* A call, an indirect jump, or a jump out of [0, size) leaves the body. */
static bool leaves_body(const struct insn *in, size_t at, size_t size)
{
	if (in->map == 1 && in->op == 0xe8)
		return true;
	if (in->map == 1 && in->op == 0xff && in->has_modrm) {
		unsigned reg = (in->modrm >> 3) & 7;

		if (reg >= 2 && reg <= 5)
			return true;
	}
	if (in->is_rel) {
		int64_t target = (int64_t)(at + in->len) + in->rel;

		return target < 0 || target >= (int64_t)size;
	}
	return false;
}

bool x86_is_leaf(const uint8_t *code, size_t size, uint64_t vaddr, const uint64_t *must_hit,
		 size_t nmust_hit)
{
	size_t at = 0, hit = 0;

	while (at < size) {
		struct insn in;

		for (size_t i = 0; i < nmust_hit; i++)
			hit += must_hit[i] == vaddr + at;
		if (!decode(code + at, size - at, &in) || leaves_body(&in, at, size))
			return false;
		at += in.len;
	}
	return at == size && hit == nmust_hit;
}
