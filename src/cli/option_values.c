/* The values options take, checked with the same words in every command: numbers with k/M/G,
 * periods as counts or times, comma-separated lists of them, thread counts; and whether a
 * period's units suit its facility. */
#include "cli/options.h"

#include "facilities/facility.h"
#include "facilities/machine.h"
#include "util/text.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

int pb_parse_u64(const char *what, const char *text, uint64_t min, uint64_t max, uint64_t *out,
		 struct pb_error *err)
{
	if (!text || !*text)
		return pb_fail(err, PB_EXIT_USAGE, 0, "%s needs a number", what);
	const char *p = text;
	while (isspace((unsigned char)*p))
		p++;
	if (*p == '-')
		return pb_fail(err, PB_EXIT_USAGE, 0, "%s '%s': must not be negative", what, text);
	if (!isdigit((unsigned char)*p))
		return pb_fail(err, PB_EXIT_USAGE, 0, "%s '%s' is not a number", what, text);
	errno = 0;
	char *end;
	unsigned long long v = strtoull(p, &end, 0);
	if (errno == ERANGE)
		return pb_fail(err, PB_EXIT_USAGE, 0, "%s '%s' is too large (max %llu)", what, text,
			       (unsigned long long)max);
	uint64_t scale = 1;
	if (*end == 'k' || *end == 'K')
		scale = 1000, end++;
	else if (*end == 'M')
		scale = 1000000, end++;
	else if (*end == 'G')
		scale = 1000000000, end++;
	if (*end)
		return pb_fail(err, PB_EXIT_USAGE, 0, "%s '%s': unexpected '%s' after the number",
			       what, text, end);
	if (v > UINT64_MAX / scale || v * scale > max)
		return pb_fail(err, PB_EXIT_USAGE, 0, "%s '%s' is too large (max %llu)", what, text,
			       (unsigned long long)max);
	v *= scale;
	if (v < min)
		return pb_fail(err, PB_EXIT_USAGE, 0, "%s '%s' is too small (min %llu)", what, text,
			       (unsigned long long)min);
	*out = v;
	return 0;
}

/* A comma-separated list: each item parsed by item(ctx, text, index), at most max_n. */
struct list_ctx {
	uint64_t min, max, *out;
	unsigned *units;
};

static int parse_list(const char *what, const char *text, unsigned max_n, unsigned *n,
		      int (*item)(const char *what, struct list_ctx *ctx, const char *text,
				  unsigned i, struct pb_error *err),
		      struct list_ctx *ctx, struct pb_error *err)
{
	char buf[512];
	if (!text || strlen(text) >= sizeof buf)
		return pb_fail(err, PB_EXIT_USAGE, 0, "%s: list missing or too long", what);
	strcpy(buf, text);
	*n = 0;
	char *save = NULL;
	for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (*n >= max_n)
			return pb_fail(err, PB_EXIT_USAGE, 0, "%s: at most %u values", what, max_n);
		if (item(what, ctx, tok, *n, err))
			return -1;
		(*n)++;
	}
	if (!*n)
		return pb_fail(err, PB_EXIT_USAGE, 0, "%s: empty list", what);
	return 0;
}

static int u64_item(const char *what, struct list_ctx *ctx, const char *text, unsigned i,
		    struct pb_error *err)
{
	return pb_parse_u64(what, text, ctx->min, ctx->max, &ctx->out[i], err);
}

static int period_item(const char *what, struct list_ctx *ctx, const char *text, unsigned i,
		       struct pb_error *err)
{
	unsigned one;
	if (pb_parse_period(what, text, ctx->min, ctx->max, &ctx->out[i], &one, err))
		return -1;
	*ctx->units |= one;
	return 0;
}

/* A time unit and its length in ns; "us" before "s" so the longer suffix is tried first. */
static const struct {
	const char *suffix;
	uint64_t ns;
} time_units[] = {
	{"ns", 1}, {"us", 1000}, {"ms", 1000000}, {"s", 1000000000},
};

int pb_parse_period(const char *what, const char *text, uint64_t min, uint64_t max,
		    uint64_t *out, unsigned *units, struct pb_error *err)
{
	*units = PB_PERIOD_PLAIN;
	size_t len = text ? strlen(text) : 0;
	for (size_t i = 0; i < sizeof time_units / sizeof time_units[0]; i++) {
		size_t sl = strlen(time_units[i].suffix);
		if (len <= sl || strcmp(text + len - sl, time_units[i].suffix) ||
		    !isdigit((unsigned char)text[len - sl - 1]))
			continue;
		char number[64];
		if (len - sl >= sizeof number)
			return pb_fail(err, PB_EXIT_USAGE, 0, "%s '%s' is too long", what, text);
		memcpy(number, text, len - sl);
		number[len - sl] = '\0';
		/* the number itself plain: "1kms" is no period */
		for (const char *c = number; *c; c++)
			if (!isdigit((unsigned char)*c))
				return pb_fail(err, PB_EXIT_USAGE, 0, "%s '%s': write a time as whole "
					       "units (1500us, not 1.5ms; 2ms, not 2kus)", what, text);
		uint64_t v;
		/* digits only, so the one way to fail is a number past 64 bits */
		if (pb_parse_u64(what, number, 0, UINT64_MAX, &v, NULL) ||
		    v > max / time_units[i].ns)
			return pb_fail(err, PB_EXIT_USAGE, 0, "%s '%s' is too long a time (max %llu ns)",
				       what, text, (unsigned long long)max);
		v *= time_units[i].ns;
		if (v < min)
			return pb_fail(err, PB_EXIT_USAGE, 0, "%s '%s' is too short (min %llu ns)", what,
				       text, (unsigned long long)min);
		*out = v;
		*units = PB_PERIOD_TIME;
		return 0;
	}
	if (pb_parse_u64(what, text, min, max, out, err)) {
		/* a unit we do not know reads better named as such than as stray characters */
		if (len && isalpha((unsigned char)text[len - 1]) && isdigit((unsigned char)text[0]))
			pb_fail(err, PB_EXIT_USAGE, 0, "%s '%s': unknown unit; a period is a number "
				"of events (10000, 10k, 2M) or a time (500ns, 100us, 1ms, 1s)", what,
				text);
		return -1;
	}
	if (len && strchr("kKMG", text[len - 1]))
		*units = PB_PERIOD_COUNT;
	return 0;
}

int pb_parse_period_list(const char *what, const char *text, uint64_t min, uint64_t max,
			 uint64_t *out, unsigned max_n, unsigned *n, unsigned *units,
			 struct pb_error *err)
{
	struct list_ctx ctx = {.min = min, .max = max, .out = out, .units = units};
	*units = PB_PERIOD_PLAIN;
	return parse_list(what, text, max_n, n, period_item, &ctx, err);
}

int pb_period_check(const char *what, unsigned units, const char *spec_text,
		    struct pb_error *err)
{
	struct pb_spec spec;
	struct pb_error ignored = {0};
	if (!units || !spec_text || pb_spec_parse(spec_text, &spec, &ignored))
		return 0;
	const struct pb_facility *f = spec.facility;
	spec_text = spec.text;
	bool in_ns = !strcmp(pb_facility_period_unit(f), "ns");
	if ((units & PB_PERIOD_TIME) && !in_ns)
		return pb_fail(err, PB_EXIT_USAGE, 0, "%s: %s samples every N %s, not after a time; "
			       "give a count (10000, 10k)", what, spec_text,
			       pb_facility_period_unit(f));
	if ((units & PB_PERIOD_COUNT) && in_ns)
		return pb_fail(err, PB_EXIT_USAGE, 0, "%s: the period of %s is a time; give it with "
			       "a unit (100us, 1ms) or in ns, not with a count suffix (k, M, G)",
			       what, spec_text);
	return 0;
}

int pb_parse_u64_list(const char *what, const char *text, uint64_t min, uint64_t max,
		      uint64_t *out, unsigned max_n, unsigned *n, struct pb_error *err)
{
	struct list_ctx ctx = {.min = min, .max = max, .out = out};
	return parse_list(what, text, max_n, n, u64_item, &ctx, err);
}

int pb_parse_threads(const char *what, const char *text, uint64_t *out, struct pb_error *err)
{
	unsigned ncpus = pb_machine_live()->ncpus;
	if (pb_parse_u64(what, text, 1, UINT32_MAX, out, err))
		return -1;
	if (ncpus && *out > ncpus)
		return pb_fail(err, PB_EXIT_USAGE, 0,
			       "%s %llu: this machine has %u CPUs; pinned threads sharing a CPU would "
			       "distort every figure (use at most %u)", what,
			       (unsigned long long)*out, ncpus, ncpus);
	return 0;
}
