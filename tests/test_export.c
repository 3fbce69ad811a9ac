/* The export model and formats on small sets built by hand: equal stacks merge and others do
 * not (however many share a hash bucket), frames are keyed by (object, address), raw call
 * chains lose perf's context markers and a chain of markers alone falls back to the IP, a
 * chainless sample seen again adds to its stack; folded stacks merge addresses of a function,
 * turn ';' into ':' and drop empty stacks; speedscope shares one frame per function; pprof
 * is gzip whose first field is string_table[0] = ""; sibling paths put ".exact" before the
 * extension. */
#include "check.h"
#include "export/raw.h"

#include <jansson.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static char *write_to_memory(const struct pb_export_format *f, const struct pb_xset *s,
			     size_t profile, size_t *len)
{
	char *text = NULL;
	FILE *out = open_memstream(&text, len);
	struct pb_error err;
	size_t list[1] = {profile};
	CHECK(out && f->write(s, list, 1, out, &err) == 0);
	fclose(out);
	return text;
}

static void sibling_paths(void)
{
	char out[256];
	pb_export_sibling_path("prof.pb.gz", "exact", out, sizeof out);
	CHECK(!strcmp(out, "prof.exact.pb.gz"));
	pb_export_sibling_path("dir.d/x", "exact", out, sizeof out);
	CHECK(!strcmp(out, "dir.d/x.exact"));
	pb_export_sibling_path("/t/.p.folded", "exact", out, sizeof out);
	CHECK(!strcmp(out, "/t/.p.exact.folded"));
	struct pb_export_request req;
	struct pb_error err;
	CHECK(pb_export_parse("speedscope:a:b.json", &req, &err) == 0 &&
	      req.format == &pb_export_speedscope && !strcmp(req.path, "a:b.json"));
	CHECK(pb_export_parse("flame:x", &req, &err) != 0 && err.code == PB_EXIT_USAGE);
	CHECK(pb_export_parse("pprof:", &req, &err) != 0 && err.code == PB_EXIT_USAGE);
}

int main(void)
{
	sibling_paths();
	static const struct pb_xvalue_type types[2] = {
		{.type = "samples", .unit = "count", .primary = true},
		{.type = "period", .unit = "events"}};
	struct pb_xset s = {0};
	CHECK(pb_xset_add_profile(&s, "p", types, 2) == 0);
	long a1 = pb_xset_frame(&s, "/bin/x", 0x10, "a;b", "x.c", 3);
	long a2 = pb_xset_frame(&s, "/bin/x", 0x14, "a;b", "x.c", 4);
	long m = pb_xset_frame(&s, "/bin/x", 0x40, "main", "x.c", 9);
	CHECK(pb_xset_frame(&s, "/bin/x", 0x10, "other", "", 0) == a1); /* first naming stays */
	CHECK(pb_xset_frame(&s, "/bin/y", 0x10, "a;b", "x.c", 3) != a1); /* another object */
	CHECK(a1 >= 0 && a2 > a1 && m > a2 && s.nframes == 4);

	/* leaf first: a at two addresses under main, and an empty value stack */
	uint32_t st1[2] = {(uint32_t)a1, (uint32_t)m}, st2[2] = {(uint32_t)a2, (uint32_t)m};
	uint64_t v[2] = {1, 100}, zero[2] = {0, 0};
	CHECK(pb_xprofile_add(&s, 0, st1, 2, v) == 0);
	CHECK(pb_xprofile_add(&s, 0, st1, 2, v) == 0);
	CHECK(pb_xprofile_add(&s, 0, st2, 2, v) == 1);
	CHECK(pb_xprofile_add(&s, 0, st2, 1, zero) == 2); /* same leaf, shorter: its own stack */
	CHECK_EQ_U64(pb_xstack_values(&s.profiles[0], 0)[0], 2);
	CHECK_EQ_U64(pb_xstack_values(&s.profiles[0], 0)[1], 200);
	/* many stacks: each stays itself whatever the buckets */
	for (uint32_t i = 0; i < 3000; i++) {
		uint32_t f[3] = {i, i % 7, i % 3};
		for (int k = 0; k < 3; k++)
			f[k] %= (uint32_t)s.nframes;
		pb_xprofile_add(&s, 0, f, 3, v);
	}
	uint64_t total = 0;
	for (size_t i = 0; i < s.profiles[0].nstacks; i++)
		total += pb_xstack_values(&s.profiles[0], i)[0];
	CHECK_EQ_U64(total, 3 + 3000);

	size_t len;
	char *folded = write_to_memory(&pb_export_folded, &s, 0, &len);
	CHECK(folded && strstr(folded, "main;a:b 3\n")); /* two addresses of a:b, one line */
	CHECK(folded && !strstr(folded, "a;b"));
	CHECK(folded && !strstr(folded, " 0\n")); /* the empty stack is left out */
	free(folded);

	char *spd = write_to_memory(&pb_export_speedscope, &s, 0, &len);
	json_error_t je;
	json_t *root = spd ? json_loadb(spd, len, 0, &je) : NULL;
	CHECK(root != NULL);
	json_t *frames = json_object_get(json_object_get(root, "shared"), "frames");
	/* a;b of x.c (three addresses, two objects: one name and file) and main */
	CHECK_EQ_U64(json_array_size(frames), 2);
	CHECK(!strcmp(json_string_value(json_object_get(root, "$schema")),
		      "https://www.speedscope.app/file-format-schema.json"));
	json_t *p0 = json_array_get(json_object_get(root, "profiles"), 0);
	CHECK(!strcmp(json_string_value(json_object_get(p0, "type")), "sampled"));
	CHECK_EQ_U64(json_array_size(json_object_get(p0, "samples")),
		     json_array_size(json_object_get(p0, "weights")));
	json_decref(root);
	free(spd);

	char *pp = write_to_memory(&pb_export_pprof, &s, 0, &len);
	CHECK(pp && len > 2 && (uint8_t)pp[0] == 0x1f && (uint8_t)pp[1] == 0x8b);
	uint8_t plain[8] = {0};
	z_stream z = {.next_in = (Bytef *)pp, .avail_in = (uInt)len, .next_out = plain,
		      .avail_out = sizeof plain};
	CHECK(inflateInit2(&z, 31) == Z_OK);
	inflate(&z, Z_SYNC_FLUSH);
	inflateEnd(&z);
	CHECK(plain[0] == (6 << 3 | 2) && plain[1] == 0); /* string_table: "" first */
	free(pp);
	pb_xset_free(&s);

	/* raw chains: markers skipped, markers alone fall back to the IP, chainless adds up */
	struct pb_xraw r;
	CHECK(pb_xraw_init(&r, "raw", types, 2) == 0);
	uint64_t chain[4] = {PERF_CONTEXT_USER, 0x1000, 0x2000, PERF_CONTEXT_KERNEL};
	uint64_t markers[2] = {PERF_CONTEXT_KERNEL, PERF_CONTEXT_USER};
	CHECK(pb_xraw_add(&r, 7, 0x1000, chain, 4, v) == 0);
	CHECK(pb_xraw_add(&r, 7, 0x3000, markers, 2, v) == 0);
	CHECK(pb_xraw_add(&r, 7, 0x3000, NULL, 0, v) == 0);
	CHECK(pb_xraw_add(&r, 7, 0x3000, NULL, 0, v) == 0);
	CHECK(pb_xraw_add(&r, 8, 0x3000, NULL, 0, v) == 0); /* another process */
	const struct pb_xprofile *rp = &r.stacks.profiles[0];
	CHECK_EQ_U64(rp->nstacks, 3);
	CHECK_EQ_U64(rp->stacks[0].depth, 2);
	CHECK(r.ip[pb_xstack_frames(rp, 0)[0]] == 0x1000 && r.ip[pb_xstack_frames(rp, 0)[1]] == 0x2000);
	CHECK_EQ_U64(rp->stacks[1].depth, 1);
	CHECK_EQ_U64(pb_xstack_values(rp, 1)[0], 3);
	CHECK_EQ_U64(pb_xstack_values(rp, 2)[0], 1);
	pb_xraw_free(&r);
	return pb_check_done("export");
}
