/* pprof's profile.proto (github.com/google/pprof, proto/profile.proto), gzipped as pprof writes
 * it. What readers rely on: string_table[0] is ""; every sample has one value per sample_type;
 * mapping, location and function ids are non-zero; a sample's locations are leaf first; every
 * location has a line naming a function (speedscope drops locations without one);
 * default_sample_type stays unset (pprof then shows the last type). One location per frame
 * (object, address), one function per (name, file), one mapping per object. The protobuf
 * encoding is small enough to write here: varints and length-delimited fields. */
#include "export/export.h"
#include "util/kit.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* Field numbers of profile.proto. */
enum {
	PROFILE_SAMPLE_TYPE = 1, PROFILE_SAMPLE = 2, PROFILE_MAPPING = 3, PROFILE_LOCATION = 4,
	PROFILE_FUNCTION = 5, PROFILE_STRING_TABLE = 6, PROFILE_PERIOD_TYPE = 11,
	PROFILE_PERIOD = 12, PROFILE_COMMENT = 13,
	VALUE_TYPE_TYPE = 1, VALUE_TYPE_UNIT = 2,
	SAMPLE_LOCATION_ID = 1, SAMPLE_VALUE = 2,
	MAPPING_ID = 1, MAPPING_FILENAME = 5, MAPPING_HAS_FUNCTIONS = 7,
	MAPPING_HAS_FILENAMES = 8, MAPPING_HAS_LINE_NUMBERS = 9,
	LOCATION_ID = 1, LOCATION_MAPPING_ID = 2, LOCATION_ADDRESS = 3, LOCATION_LINE = 4,
	LINE_FUNCTION_ID = 1, LINE_LINE = 2,
	FUNCTION_ID = 1, FUNCTION_NAME = 2, FUNCTION_SYSTEM_NAME = 3, FUNCTION_FILENAME = 4,
};
enum { WIRE_VARINT = 0, WIRE_LEN = 2 };

struct buf {
	uint8_t *b;
	size_t n, cap;
	bool oom;
};

static void put_bytes(struct buf *b, const void *p, size_t n)
{
	while (!b->oom && b->n + n > b->cap)
		b->oom = pb_grow(&b->b, &b->cap, b->cap, 1, 4096) != 0;
	if (b->oom)
		return;
	memcpy(b->b + b->n, p, n);
	b->n += n;
}

static void put_varint(struct buf *b, uint64_t v)
{
	uint8_t tmp[10];
	size_t n = 0;
	do {
		tmp[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
	put_bytes(b, tmp, n);
}

static void put_key(struct buf *b, unsigned field, unsigned wire)
{
	put_varint(b, (uint64_t)field << 3 | wire);
}

/* A varint field; zero is the default and is left out, as protobuf encoders do. */
static void put_field(struct buf *b, unsigned field, uint64_t v)
{
	if (!v)
		return;
	put_key(b, field, WIRE_VARINT);
	put_varint(b, v);
}

static void put_message(struct buf *b, unsigned field, const struct buf *m)
{
	b->oom |= m->oom;
	put_key(b, field, WIRE_LEN);
	put_varint(b, m->n);
	put_bytes(b, m->b, m->n);
}

/* The string table: index per distinct string (by content). */
struct strings {
	struct buf out;              /* the encoded string_table fields */
	struct pb_hashmap index;     /* content hash -> index + 1 of the first with that hash */
	const char **text;           /* for the hash chain's comparison */
	uint32_t *next;
	size_t n, cap;
};

static uint64_t hash_str(const char *s)
{
	uint64_t h = UINT64_C(0xcbf29ce484222325);
	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * UINT64_C(0x100000001b3);
	return h;
}

/* The index of text (which must outlive the table), added when new; 0 is "". */
static uint64_t str_index(struct strings *t, const char *text)
{
	uint64_t h = hash_str(text);
	const uint64_t *at = pb_hashmap_find(&t->index, h, 0);
	for (uint64_t i = at ? *at : 0; i; i = t->next[i - 1])
		if (!strcmp(t->text[i - 1], text))
			return i - 1;
	size_t cap = t->cap;
	if (pb_grow(&t->text, &t->cap, t->n, sizeof *t->text, 256)) {
		t->out.oom = true;
		return 0;
	}
	if (cap != t->cap) {
		uint32_t *next = realloc(t->next, t->cap * sizeof *next);
		if (!next) {
			t->out.oom = true;
			return 0;
		}
		t->next = next;
	}
	bool added;
	uint64_t *slot = pb_hashmap_upsert(&t->index, h, 0, &added);
	if (!slot) {
		t->out.oom = true;
		return 0;
	}
	t->text[t->n] = text;
	t->next[t->n] = added ? 0 : (uint32_t)*slot;
	*slot = ++t->n;
	size_t len = strlen(text);
	put_key(&t->out, PROFILE_STRING_TABLE, WIRE_LEN);
	put_varint(&t->out, len);
	put_bytes(&t->out, text, len);
	return t->n - 1;
}

static void strings_free(struct strings *t)
{
	free(t->out.b);
	pb_hashmap_free(&t->index);
	free(t->text);
	free(t->next);
}

static void put_value_type(struct buf *b, struct strings *t, unsigned field, const char *type,
			   const char *unit)
{
	struct buf m = {0};
	put_field(&m, VALUE_TYPE_TYPE, str_index(t, type));
	put_field(&m, VALUE_TYPE_UNIT, str_index(t, unit));
	put_message(b, field, &m);
	free(m.b);
}

/* Ids of what the profile uses: frame -> location, (name, file) -> function, object ->
 * mapping; each id is the position in its list plus one. */
struct ids {
	struct pb_hashmap functions, mappings;
	uint64_t *location_of;       /* per frame of the set, 0 when unused */
	uint64_t nfunctions, nmappings, nlocations;
};

static void put_location(struct buf *body, struct strings *t, struct ids *ids,
			 const struct pb_xframe *f, uint64_t id)
{
	bool added;
	uint64_t *mapping = pb_hashmap_upsert(&ids->mappings, (uintptr_t)f->object, 0, &added);
	uint64_t *function = mapping ? pb_hashmap_upsert(&ids->functions, (uintptr_t)f->function,
							 (uintptr_t)f->file, &added)
				     : NULL;
	if (!function) {
		body->oom = true;
		return;
	}
	struct buf m = {0};
	if (!*function) {
		*function = ++ids->nfunctions;
		put_field(&m, FUNCTION_ID, *function);
		put_field(&m, FUNCTION_NAME, str_index(t, f->function));
		put_field(&m, FUNCTION_SYSTEM_NAME, str_index(t, f->system_name));
		put_field(&m, FUNCTION_FILENAME, str_index(t, f->file));
		put_message(body, PROFILE_FUNCTION, &m);
		m.n = 0;
	}
	if (!*mapping) {
		*mapping = ++ids->nmappings;
		put_field(&m, MAPPING_ID, *mapping);
		put_field(&m, MAPPING_FILENAME, str_index(t, f->object));
		put_field(&m, MAPPING_HAS_FUNCTIONS, 1);
		put_field(&m, MAPPING_HAS_FILENAMES, 1);
		put_field(&m, MAPPING_HAS_LINE_NUMBERS, 1);
		put_message(body, PROFILE_MAPPING, &m);
		m.n = 0;
	}
	struct buf line = {0};
	put_field(&line, LINE_FUNCTION_ID, *function);
	put_field(&line, LINE_LINE, (uint64_t)(f->line > 0 ? f->line : 0));
	put_field(&m, LOCATION_ID, id);
	put_field(&m, LOCATION_MAPPING_ID, *mapping);
	put_field(&m, LOCATION_ADDRESS, f->addr);
	put_message(&m, LOCATION_LINE, &line);
	put_message(body, PROFILE_LOCATION, &m);
	free(line.b);
	free(m.b);
}

static int encode(const struct pb_xset *s, const struct pb_xprofile *p, struct buf *body,
		  struct strings *t)
{
	struct ids ids = {0};
	ids.location_of = calloc(s->nframes ? s->nframes : 1, sizeof *ids.location_of);
	if (!ids.location_of)
		return -1;
	str_index(t, "");
	for (size_t i = 0; i < p->ntypes; i++)
		put_value_type(body, t, PROFILE_SAMPLE_TYPE, p->types[i].type, p->types[i].unit);
	if (p->period) {
		put_value_type(body, t, PROFILE_PERIOD_TYPE, p->types[p->period_type].type,
			       p->types[p->period_type].unit);
		put_field(body, PROFILE_PERIOD, (uint64_t)p->period);
	}
	for (size_t i = 0; i < p->ncomments; i++)
		put_field(body, PROFILE_COMMENT, str_index(t, p->comments[i]));
	struct buf packed = {0}, sample = {0};
	for (size_t st = 0; st < p->nstacks && !body->oom; st++) {
		const uint32_t *f = pb_xstack_frames(p, st);
		const uint64_t *v = pb_xstack_values(p, st);
		sample.n = 0;
		packed.n = 0;
		for (size_t i = 0; i < p->stacks[st].depth; i++) {
			uint64_t *loc = &ids.location_of[f[i]];
			if (!*loc) {
				*loc = ++ids.nlocations;
				put_location(body, t, &ids, &s->frames[f[i]], *loc);
			}
			put_varint(&packed, *loc);
		}
		put_message(&sample, SAMPLE_LOCATION_ID, &packed);
		packed.n = 0;
		for (size_t i = 0; i < p->ntypes; i++)
			put_varint(&packed, v[i]);
		put_message(&sample, SAMPLE_VALUE, &packed);
		put_message(body, PROFILE_SAMPLE, &sample);
	}
	bool oom = body->oom || t->out.oom || packed.oom || sample.oom;
	free(packed.b);
	free(sample.b);
	free(ids.location_of);
	pb_hashmap_free(&ids.functions);
	pb_hashmap_free(&ids.mappings);
	return oom ? -1 : 0;
}

static int gzip_to(FILE *out, const struct buf *parts[], size_t nparts, struct pb_error *err)
{
	z_stream z = {0};
	/* 15 window bits + 16: a gzip header and trailer, the on-disk form of pprof files */
	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) !=
	    Z_OK)
		return pb_fail(err, PB_EXIT_FAILURE, 0, "zlib: cannot start compressing");
	uint8_t chunk[1 << 16];
	int rc = 0;
	for (size_t i = 0; i <= nparts && !rc; i++) {
		bool last = i == nparts;
		z.next_in = last ? NULL : parts[i]->b;
		z.avail_in = last ? 0 : (uInt)parts[i]->n;
		int zr;
		do {
			z.next_out = chunk;
			z.avail_out = sizeof chunk;
			zr = deflate(&z, last ? Z_FINISH : Z_NO_FLUSH);
			if (zr == Z_STREAM_ERROR) {
				rc = pb_fail(err, PB_EXIT_FAILURE, 0, "zlib: compression failed");
				break;
			}
			size_t n = sizeof chunk - z.avail_out;
			if (n && fwrite(chunk, 1, n, out) != n) {
				rc = pb_fail(err, PB_EXIT_OUTPUT, errno, "cannot write: %s",
					     strerror(errno));
				break;
			}
		} while (z.avail_out == 0 || (last && zr != Z_STREAM_END));
	}
	deflateEnd(&z);
	return rc;
}

static int write_pprof(const struct pb_xset *s, const size_t *profiles, size_t n, FILE *out,
		       struct pb_error *err)
{
	if (n != 1)
		return pb_fail(err, PB_EXIT_FAILURE, 0, "pprof holds one profile per file");
	struct buf body = {0};
	struct strings t = {0};
	int rc = encode(s, &s->profiles[profiles[0]], &body, &t);
	if (rc)
		rc = pb_fail(err, PB_EXIT_FAILURE, ENOMEM, "out of memory encoding the pprof file");
	else
		rc = gzip_to(out, (const struct buf *[]){&t.out, &body}, 2, err);
	free(body.b);
	strings_free(&t);
	return rc;
}

const struct pb_export_format pb_export_pprof = {
	.name = "pprof",
	.summary = "pprof's profile.proto, gzipped (go tool pprof, speedscope, Perfetto): one "
		   "file per profile",
	.all_in_one = false,
	.source = true,
	.write = write_pprof,
};
