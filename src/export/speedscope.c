/* speedscope's own file format (jlfwong/speedscope, src/lib/file-format-spec.ts): "$schema",
 * shared.frames, and one "sampled" profile per profile of the set and primary value type, its
 * samples root first with a weight each. Frames are functions ((name, file) pairs): speedscope
 * keeps a frame per index, so one frame per address would split a function into many boxes.
 * Comments go in "exporter", the one free-text field the schema has. */
#include "export/export.h"
#include "util/kit.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#define SCHEMA "https://www.speedscope.app/file-format-schema.json"

static json_t *frame_of(const struct pb_xframe *f)
{
	json_t *o = json_object();
	json_object_set_new(o, "name", json_string(f->function));
	if (f->file[0])
		json_object_set_new(o, "file", json_string(f->file));
	else if (strcmp(f->object, "[unknown]"))
		json_object_set_new(o, "file", json_string(f->object));
	return o;
}

static json_t *profile_of(const struct pb_xprofile *p, size_t type, const uint32_t *frame_of_set,
			  const struct pb_xset *s)
{
	(void)s;
	json_t *samples = json_array(), *weights = json_array();
	uint64_t total = 0;
	for (size_t st = 0; st < p->nstacks; st++) {
		uint64_t w = pb_xstack_values(p, st)[type];
		size_t depth = p->stacks[st].depth;
		if (!w || !depth)
			continue;
		const uint32_t *f = pb_xstack_frames(p, st);
		json_t *stack = json_array();
		for (size_t i = depth; i-- > 0;)
			json_array_append_new(stack, json_integer(frame_of_set[f[i]]));
		json_array_append_new(samples, stack);
		json_array_append_new(weights, json_integer((json_int_t)w));
		total += w;
	}
	char name[sizeof p->name + sizeof p->types[0].type + 2];
	snprintf(name, sizeof name, "%s: %s", p->name, p->types[type].type);
	return json_pack("{s:s, s:s, s:s, s:i, s:I, s:o, s:o}", "type", "sampled", "name", name,
			 "unit", strcmp(p->types[type].unit, "nanoseconds") ? "none" : "nanoseconds",
			 "startValue", 0, "endValue", (json_int_t)total, "samples", samples,
			 "weights", weights);
}

static int write_speedscope(const struct pb_xset *s, const size_t *profiles, size_t n, FILE *out,
			    struct pb_error *err)
{
	uint32_t *frame_of_set = calloc(s->nframes ? s->nframes : 1, sizeof *frame_of_set);
	struct pb_hashmap by_function = PB_HASHMAP_INIT;
	json_t *frames = json_array(), *list = json_array();
	if (!frame_of_set)
		return pb_fail(err, PB_EXIT_FAILURE, ENOMEM, "out of memory for speedscope");
	for (size_t i = 0; i < s->nframes; i++) {
		bool added;
		uint64_t *at = pb_hashmap_upsert(&by_function, (uintptr_t)s->frames[i].function,
						 (uintptr_t)s->frames[i].file, &added);
		if (!at) {
			free(frame_of_set);
			pb_hashmap_free(&by_function);
			json_decref(frames);
			json_decref(list);
			return pb_fail(err, PB_EXIT_FAILURE, ENOMEM, "out of memory for speedscope");
		}
		if (added) {
			*at = json_array_size(frames);
			json_array_append_new(frames, frame_of(&s->frames[i]));
		}
		frame_of_set[i] = (uint32_t)*at;
	}
	char exporter[2048] = "pesbench";
	for (size_t k = 0; k < n; k++) {
		const struct pb_xprofile *p = &s->profiles[profiles[k]];
		for (size_t t = 0; t < p->ntypes; t++)
			if (p->types[t].primary)
				json_array_append_new(list, profile_of(p, t, frame_of_set, s));
		for (size_t c = 0; c < p->ncomments; c++)
			snprintf(exporter + strlen(exporter), sizeof exporter - strlen(exporter),
				 "; %s: %s", p->name, p->comments[c]);
	}
	json_t *root = json_pack("{s:s, s:{s:o}, s:o, s:s, s:i, s:s}", "$schema", SCHEMA, "shared",
				 "frames", frames, "profiles", list, "name",
				 s->nprofiles ? s->profiles[profiles[0]].name : "", "activeProfileIndex",
				 0, "exporter", exporter);
	free(frame_of_set);
	pb_hashmap_free(&by_function);
	if (!root)
		return pb_fail(err, PB_EXIT_FAILURE, ENOMEM, "out of memory for speedscope");
	int rc = json_dumpf(root, out, JSON_COMPACT) ? -1 : 0;
	json_decref(root);
	if (rc || fputc('\n', out) == EOF)
		return pb_fail(err, PB_EXIT_OUTPUT, errno, "cannot write: %s", strerror(errno));
	return 0;
}

const struct pb_export_format pb_export_speedscope = {
	.name = "speedscope",
	.summary = "speedscope's JSON (speedscope.app, offline too): every profile in one file",
	.all_in_one = true,
	.source = true,
	.write = write_speedscope,
};
