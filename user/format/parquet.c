// SPDX-License-Identifier: MIT
/* parquet.c: see parquet.h.  File layout: "PAR1", per row group one
 * column chunk per column (a data page header in Thrift compact protocol,
 * then the PLAIN values, optionally one ZSTD frame), then FileMetaData,
 * its length (4 bytes, little-endian) and "PAR1".  Columns are required
 * (no nulls), so pages carry no repetition or definition levels.  Field
 * ids are parquet.thrift's (docs/exports.md). */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "format/arrow_schema.h"
#include "format/parquet.h"
#include "format/codec/thrift_compact.h"

enum { T_INT32 = 1, T_INT64 = 2, T_BYTE_ARRAY = 6 };	/* Type */
enum { CT_UTF8 = 0, CT_UINT_32 = 13, CT_UINT_64 = 14 }; /* ConvertedType */
enum { ENC_PLAIN = 0, ENC_RLE = 3 };			/* Encoding */
enum { CODEC_NONE = 0, CODEC_ZSTD = 6 };		/* CompressionCodec */
enum { PAGE_DATA = 0 };					/* PageType */

struct chunk_meta {
	int64_t offset, compressed, uncompressed;
};

struct parquet_writer {
	FILE *f;
	const struct parquet_column *cols;
	uint32_t ncols;
	struct parquet_opts o;
	struct pbuf *vals; /* per column: PLAIN values of the open row group */
	uint32_t rows;	   /* in the open row group */
	int64_t total_rows, pos;
	struct chunk_meta *meta; /* ngroups * ncols */
	int64_t *group_rows;
	size_t ngroups, capgroups;
	void *zbuf;
	size_t zcap;
	struct tc hdr;
	int err;
};

static int physical(enum parquet_kind k)
{
	return k == PARQUET_U32 ? T_INT32 : k == PARQUET_STRING ? T_BYTE_ARRAY : T_INT64;
}

static int put(struct parquet_writer *w, const void *p, size_t n)
{
	if (n && fwrite(p, 1, n, w->f) != n)
		return -EIO;
	w->pos += (int64_t)n;
	return 0;
}

int parquet_writer__new(FILE *f, const struct parquet_column *cols, uint32_t ncols,
			const struct parquet_opts *o, struct parquet_writer **out)
{
	struct parquet_writer *w = calloc(1, sizeof(*w));

	if (!w || !(w->vals = calloc(ncols, sizeof(*w->vals)))) {
		free(w);
		return -ENOMEM;
	}
	w->f = f;
	w->cols = cols;
	w->ncols = ncols;
	w->o = *o;
	if (!w->o.rows_per_group)
		w->o.rows_per_group = 1u << 20;
	*out = w;
	return put(w, "PAR1", 4);
}

void parquet_writer__int(struct parquet_writer *w, uint32_t col, uint64_t v)
{
	if (w->cols[col].kind == PARQUET_U32) {
		uint32_t le = htole32((uint32_t)v);

		pbuf__raw(&w->vals[col], &le, 4);
	} else {
		uint64_t le = htole64(v);

		pbuf__raw(&w->vals[col], &le, 8);
	}
}

void parquet_writer__str(struct parquet_writer *w, uint32_t col, const char *s)
{
	uint32_t n = (uint32_t)strlen(s), le = htole32(n);

	pbuf__raw(&w->vals[col], &le, 4);
	pbuf__raw(&w->vals[col], s, n);
}

static int compress(struct parquet_writer *w, const struct pbuf *in, const void **out, size_t *n)
{
	size_t bound = ZSTD_compressBound(in->len), r;

	if (!w->o.zstd) {
		*out = in->p;
		*n = in->len;
		return 0;
	}
	if (bound > w->zcap) {
		void *z = realloc(w->zbuf, bound);

		if (!z)
			return -ENOMEM;
		w->zbuf = z;
		w->zcap = bound;
	}
	r = ZSTD_compress(w->zbuf, w->zcap, in->p ? in->p : (const void *)"", in->len, 3);
	if (ZSTD_isError(r))
		return -EIO;
	*out = w->zbuf;
	*n = r;
	return 0;
}

/* PageHeader{type, uncompressed_page_size, compressed_page_size,
 * data_page_header{num_values, encoding, def/rep level encodings}}. */
static void page_header(struct tc *t, uint32_t rows, size_t raw, size_t packed)
{
	tc__i32(t, 1, PAGE_DATA);
	tc__i32(t, 2, (int32_t)raw);
	tc__i32(t, 3, (int32_t)packed);
	tc__begin(t, 5);
	tc__i32(t, 1, (int32_t)rows);
	tc__i32(t, 2, ENC_PLAIN);
	tc__i32(t, 3, ENC_RLE);
	tc__i32(t, 4, ENC_RLE);
	tc__end(t);
	tc__end(t);
}

static int flush_column(struct parquet_writer *w, uint32_t c, struct chunk_meta *m)
{
	const void *data;
	size_t n;
	int err;

	if ((err = w->vals[c].err) || (err = compress(w, &w->vals[c], &data, &n)))
		return err;
	if (w->vals[c].len > INT32_MAX || n > INT32_MAX)
		return -EFBIG;
	pbuf__reset(&w->hdr.b);
	w->hdr.sp = 0;
	w->hdr.last[0] = 0;
	page_header(&w->hdr, w->rows, w->vals[c].len, n);
	if (w->hdr.b.err)
		return -ENOMEM;
	m->offset = w->pos;
	m->uncompressed = (int64_t)(w->hdr.b.len + w->vals[c].len);
	m->compressed = (int64_t)(w->hdr.b.len + n);
	if ((err = put(w, w->hdr.b.p, w->hdr.b.len)) || (err = put(w, data, n)))
		return err;
	pbuf__reset(&w->vals[c]);
	return 0;
}

static int flush_group(struct parquet_writer *w)
{
	struct chunk_meta *m;
	int err;

	if (!w->rows)
		return 0;
	if (w->ngroups == w->capgroups) {
		size_t cap = w->capgroups ? w->capgroups * 2 : 8;
		int64_t *r = realloc(w->group_rows, cap * sizeof(*r));

		if (!r)
			return -ENOMEM;
		w->group_rows = r;
		if (!(m = realloc(w->meta, cap * w->ncols * sizeof(*m))))
			return -ENOMEM;
		w->meta = m;
		w->capgroups = cap;
	}
	for (uint32_t c = 0; c < w->ncols; c++)
		if ((err = flush_column(w, c, &w->meta[w->ngroups * w->ncols + c])))
			return err;
	w->group_rows[w->ngroups++] = w->rows;
	w->rows = 0;
	return 0;
}

int parquet_writer__end_row(struct parquet_writer *w)
{
	if (w->err)
		return w->err;
	w->total_rows++;
	if (++w->rows >= w->o.rows_per_group)
		w->err = flush_group(w);
	return w->err;
}

/* SchemaElement{type, repetition_type, name, num_children, converted_type,
 * logicalType}. */
static void schema(struct tc *t, const struct parquet_writer *w)
{
	tc__list(t, 2, TC_STRUCT, w->ncols + 1);
	tc__begin(t, 0);
	tc__string(t, 4, "schema");
	tc__i32(t, 5, (int32_t)w->ncols);
	tc__end(t);
	for (uint32_t c = 0; c < w->ncols; c++) {
		enum parquet_kind k = w->cols[c].kind;

		tc__begin(t, 0);
		tc__i32(t, 1, physical(k));
		tc__i32(t, 3, 0); /* REQUIRED */
		tc__string(t, 4, w->cols[c].name);
		if (k == PARQUET_U32 || k == PARQUET_U64) {
			tc__i32(t, 6, k == PARQUET_U32 ? CT_UINT_32 : CT_UINT_64);
			tc__begin(t, 10); /* LogicalType */
			tc__begin(t, 10); /* INTEGER: IntType{bitWidth, isSigned} */
			tc__byte(t, 1, k == PARQUET_U32 ? 32 : 64);
			tc__bool(t, 2, false);
			tc__end(t);
			tc__end(t);
		} else if (k == PARQUET_STRING) {
			tc__i32(t, 6, CT_UTF8);
			tc__begin(t, 10);
			tc__begin(t, 1); /* STRING */
			tc__end(t);
			tc__end(t);
		}
		tc__end(t);
	}
}

/* ColumnChunk{file_offset, meta_data: ColumnMetaData{type, encodings,
 * path_in_schema, codec, num_values, total_uncompressed_size,
 * total_compressed_size, data_page_offset}}. */
static void column_chunk(struct tc *t, const struct parquet_writer *w, uint32_t c,
			 const struct chunk_meta *m, int64_t rows)
{
	tc__begin(t, 0);
	tc__i64(t, 2, m->offset);
	tc__begin(t, 3);
	tc__i32(t, 1, physical(w->cols[c].kind));
	tc__list(t, 2, TC_I32, 2);
	tc__elem_i32(t, ENC_PLAIN);
	tc__elem_i32(t, ENC_RLE);
	tc__list(t, 3, TC_BINARY, 1);
	tc__elem_string(t, w->cols[c].name);
	tc__i32(t, 4, w->o.zstd ? CODEC_ZSTD : CODEC_NONE);
	tc__i64(t, 5, rows);
	tc__i64(t, 6, m->uncompressed);
	tc__i64(t, 7, m->compressed);
	tc__i64(t, 9, m->offset);
	tc__end(t);
	tc__end(t);
}

/* RowGroup{columns, total_byte_size, num_rows, file_offset,
 * total_compressed_size, ordinal}. */
static void row_groups(struct tc *t, const struct parquet_writer *w)
{
	tc__list(t, 4, TC_STRUCT, (uint32_t)w->ngroups);
	for (size_t g = 0; g < w->ngroups; g++) {
		const struct chunk_meta *m = &w->meta[g * w->ncols];
		int64_t raw = 0, packed = 0;

		for (uint32_t c = 0; c < w->ncols; c++) {
			raw += m[c].uncompressed;
			packed += m[c].compressed;
		}
		tc__begin(t, 0);
		tc__list(t, 1, TC_STRUCT, w->ncols);
		for (uint32_t c = 0; c < w->ncols; c++)
			column_chunk(t, w, c, &m[c], w->group_rows[g]);
		tc__i64(t, 2, raw);
		tc__i64(t, 3, w->group_rows[g]);
		tc__i64(t, 5, m[0].offset);
		tc__i64(t, 6, packed);
		tc__end(t);
	}
}

/* FileMetaData{version, schema, num_rows, row_groups, key_value_metadata
 * (ARROW:schema, for Arrow types Parquet lacks), created_by}. */
static int footer(struct parquet_writer *w)
{
	struct tc t = { 0 };
	char *arrow = NULL;
	uint32_t len;
	int err;

	if ((err = arrow_schema__base64(w->cols, w->ncols, &arrow)))
		return err;
	tc__i32(&t, 1, 1);
	schema(&t, w);
	tc__i64(&t, 3, w->total_rows);
	row_groups(&t, w);
	tc__list(&t, 5, TC_STRUCT, 1);
	tc__begin(&t, 0);
	tc__string(&t, 1, "ARROW:schema");
	tc__string(&t, 2, arrow);
	tc__end(&t);
	tc__string(&t, 6, "sledtrace version 0.1.0");
	tc__end(&t);
	free(arrow);
	len = htole32((uint32_t)t.b.len);
	err = t.b.err ? -ENOMEM : 0;
	if (!err && !(err = put(w, t.b.p, t.b.len)) && !(err = put(w, &len, 4)))
		err = put(w, "PAR1", 4);
	pbuf__free(&t.b);
	return err;
}

int parquet_writer__finish(struct parquet_writer *w)
{
	int err = w->err;

	if (!err)
		err = flush_group(w);
	if (!err)
		err = footer(w);
	if (!err && ferror(w->f))
		err = -EIO;
	return w->err = err;
}

void parquet_writer__free(struct parquet_writer *w)
{
	if (!w)
		return;
	for (uint32_t c = 0; c < w->ncols; c++)
		pbuf__free(&w->vals[c]);
	pbuf__free(&w->hdr.b);
	free(w->vals);
	free(w->meta);
	free(w->group_rows);
	free(w->zbuf);
	free(w);
}
