#include "facilities/spec_options.h"

#include "facilities/facility.h"
#include "util/suggest.h"
#include "util/text.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void store(struct pb_spec *spec, struct pb_spec_field f, uint64_t v)
{
	unsigned char *at = (unsigned char *)spec + f.offset;
	uint8_t v8 = (uint8_t)v;
	uint16_t v16 = (uint16_t)v;
	uint32_t v32 = (uint32_t)v;
	switch (f.size) {
	case 1: memcpy(at, &v8, 1); break;
	case 2: memcpy(at, &v16, 2); break;
	case 4: memcpy(at, &v32, 4); break;
	case 8: memcpy(at, &v, 8); break;
	default: break;
	}
}

void pb_spec_option_usage(const struct pb_spec_option *o, char *buf, size_t len)
{
	switch (o->kind) {
	case PB_SPEC_FLAG:
	case PB_SPEC_CHOICE:
		pb_format(buf, len, "%s", o->word);
		break;
	case PB_SPEC_NUMBER:
		if (o->arg)
			pb_format(buf, len, "%s=%s", o->word, o->arg);
		else
			pb_format(buf, len, "%s=%" PRIu64 "..%" PRIu64, o->word, o->min, o->max);
		break;
	case PB_SPEC_TEXT:
		pb_format(buf, len, "%s=%s", o->word, o->arg ? o->arg : "TEXT");
		break;
	}
}

void pb_spec_options_list(const struct pb_spec_options *t, char *buf, size_t len)
{
	if (len)
		buf[0] = '\0';
	for (size_t i = 0; i < t->n; i++) {
		char one[96];
		pb_spec_option_usage(&t->options[i], one, sizeof one);
		pb_list_add(buf, len, one);
	}
}

const char *pb_spec_options_choice(const struct pb_spec_options *t, size_t i)
{
	for (size_t k = 0; k < t->n; k++)
		if (t->options[k].kind == PB_SPEC_CHOICE && i-- == 0)
			return t->options[k].word;
	return NULL;
}

static int unknown_word(const struct pb_spec_options *t, struct pb_spec *spec, const char *word,
			struct pb_error *err)
{
	if (t->unknown)
		return t->unknown(t, spec, word, err);
	struct pb_suggest near;
	pb_suggest_init(&near, word);
	for (size_t i = 0; i < t->n; i++)
		pb_suggest_consider(&near, t->options[i].word);
	char nearest[3 * PB_SUGGEST_NAME_LEN + 16];
	pb_suggest_names(&near, nearest, sizeof nearest);
	if (t->hint)
		return pb_fail(err, PB_EXIT_USAGE, EINVAL, "%s: unknown %s '%s'; %s%s%s%s",
			       spec->text, t->what, word, nearest[0] ? "did you mean " : "",
			       nearest, nearest[0] ? "? " : "", t->hint);
	char valid[320];
	pb_spec_options_list(t, valid, sizeof valid);
	return pb_fail(err, PB_EXIT_USAGE, EINVAL, "%s: unknown %s '%s'; %s%s%svalid: %s",
		       spec->text, t->what, word, nearest[0] ? "did you mean " : "", nearest,
		       nearest[0] ? "? " : "", valid);
}

static const struct pb_spec_option *find(const struct pb_spec_options *t, const char *word,
					 size_t len, bool with_value)
{
	for (size_t i = 0; i < t->n; i++) {
		const struct pb_spec_option *o = &t->options[i];
		bool takes_value = o->kind == PB_SPEC_NUMBER || o->kind == PB_SPEC_TEXT;
		if (takes_value == with_value && strlen(o->word) == len &&
		    !strncmp(o->word, word, len))
			return o;
	}
	return NULL;
}

static int number(const struct pb_spec_option *o, struct pb_spec *spec, const char *value,
		  void *ctx, struct pb_error *err)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(value, &end, o->base);
	bool is_number = *value && *value != '-' && *value != '+' && end != value && !*end &&
			 !errno;
	if (is_number && o->check && o->check(spec, v, ctx, err))
		return -1;
	if (is_number && v >= o->min && v <= o->max) {
		store(spec, o->field, v);
		spec->options |= o->bits;
		return 0;
	}
	char note[200] = "";
	if (o->note)
		pb_format(note, sizeof note, " (%s)", o->note);
	if (o->bad_value)
		return pb_fail(err, PB_EXIT_USAGE, EINVAL, "%s: %s", spec->text, o->bad_value);
	if (o->min == 0 && o->max == UINT64_MAX)
		return pb_fail(err, PB_EXIT_USAGE, EINVAL, "%s: %s needs %s%s", spec->text, o->word,
			       o->about ? o->about : "a number", note);
	return pb_fail(err, PB_EXIT_USAGE, EINVAL,
		       "%s: %s must be %s from %" PRIu64 " to %" PRIu64 "%s", spec->text, o->word,
		       o->about ? o->about : "a number", o->min, o->max, note);
}

static void choose(const struct pb_spec_option *o, struct pb_spec *spec)
{
	pb_format(spec->event, sizeof spec->event, "%s", o->word);
	store(spec, o->field, o->value);
	spec->options |= o->bits;
}

int pb_spec_options_parse(const struct pb_spec_options *t, struct pb_spec *spec, const char *args,
			  void *ctx, struct pb_error *err)
{
	const struct pb_spec_option *chosen = NULL;
	for (const char *p = args; p;) {
		const char *colon = strchr(p, ':');
		size_t len = colon ? (size_t)(colon - p) : strlen(p);
		char word[128];
		if (len >= sizeof word)
			return pb_fail(err, PB_EXIT_USAGE, EINVAL, "%s: '%.*s...' is too long",
				       spec->text, 40, p);
		memcpy(word, p, len);
		word[len] = '\0';
		p = colon ? colon + 1 : NULL;
		if (!len && !t->other)
			continue;

		const char *eq = strchr(word, '=');
		const struct pb_spec_option *o =
			find(t, word, eq ? (size_t)(eq - word) : len, eq != NULL);
		if (!o) {
			if (t->other) {
				if (t->other(spec, word, ctx, err))
					return -1;
				continue;
			}
			return unknown_word(t, spec, word, err);
		}
		switch (o->kind) {
		case PB_SPEC_FLAG:
			spec->options |= o->bits;
			break;
		case PB_SPEC_CHOICE:
			if (chosen && chosen != o)
				return pb_fail(err, PB_EXIT_USAGE, EINVAL,
					       "%s: :%s and :%s exclude each other%s%s%s", spec->text,
					       chosen->word, o->word, t->exclusive_why ? " (" : "",
					       t->exclusive_why ? t->exclusive_why : "",
					       t->exclusive_why ? ")" : "");
			chosen = o;
			choose(o, spec);
			break;
		case PB_SPEC_NUMBER:
			if (number(o, spec, eq + 1, ctx, err))
				return -1;
			break;
		case PB_SPEC_TEXT:
			if (o->parse(spec, eq + 1, ctx, err))
				return -1;
			spec->options |= o->bits;
			break;
		}
	}
	if (!chosen && t->default_choice) {
		const struct pb_spec_option *o =
			find(t, t->default_choice, strlen(t->default_choice), false);
		if (o)
			choose(o, spec);
	}
	return 0;
}

int pb_spec_event_word(struct pb_spec *spec, const char *word, void *ctx, struct pb_error *err)
{
	struct pb_spec_event_words *e = ctx;
	size_t len = strlen(word);
	if (e->used + (e->n ? 1 : 0) + len >= sizeof e->text)
		return pb_fail(err, PB_EXIT_USAGE, EINVAL, "%s: event name too long", spec->text);
	if (e->n)
		e->text[e->used++] = ':';
	memcpy(e->text + e->used, word, len + 1);
	e->used += len;
	e->n++;
	return 0;
}
