#include "cli/options.h"

#include "cli/commands.h"

#include "facilities/facility.h"
#include "facilities/machine.h"
#include "util/suggest.h"
#include "util/text.h"

#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#define HELP_WIDTH 80

static const struct pb_opt help_option = {
	.name = "help", .short_name = 'h', .kind = PB_OPT_FLAG, .help = "this text",
};

static const struct pb_opt *find_long(const struct pb_cmd_spec *spec, const char *name,
				      size_t len)
{
	if (len == 4 && !strncmp(name, "help", 4))
		return &help_option;
	for (const struct pb_opt *o = spec->options; o && o->name; o++)
		if (strlen(o->name) == len && !strncmp(o->name, name, len))
			return o;
	return NULL;
}

/* The short options a perf user brings, one meaning in every command: a command whose table
 * has the long option answers to the letter too, unless its table gives the letter to another
 * option. -e is perf's spelling of the event, which here is the facility spec (-e cycles). */
static const struct {
	const char *name;
	char letter;
} conventional_short[] = {
	{"facility", 'f'}, {"facility", 'e'}, {"event", 'e'}, {"period", 'c'}, {"out", 'o'},
	{"output", 'o'}, {"workload", 'w'}, {"threads", 't'}, {"runs", 'r'}, {"quiet", 'q'},
};

static bool letter_declared(const struct pb_cmd_spec *spec, char c)
{
	if (c == help_option.short_name)
		return true;
	for (const struct pb_opt *o = spec->options; o && o->name; o++)
		if (o->short_name == c)
			return true;
	return false;
}

/* Whether an option before o in the table takes letter c by convention (-e: --facility before
 * --event): each letter means one option. */
static bool convention_taken_before(const struct pb_cmd_spec *spec, const struct pb_opt *o,
				    char c)
{
	for (const struct pb_opt *p = spec->options; p && p->name && p != o; p++)
		for (size_t i = 0; i < sizeof conventional_short / sizeof conventional_short[0]; i++)
			if (!p->hidden && conventional_short[i].letter == c &&
			    !strcmp(conventional_short[i].name, p->name))
				return true;
	return false;
}

size_t pb_opt_short_letters(const struct pb_cmd_spec *spec, const struct pb_opt *o,
			    char letters[PB_OPT_MAX_SHORT + 1])
{
	size_t n = 0;
	if (o->short_name)
		letters[n++] = o->short_name;
	if (o != &help_option && !o->hidden)
		for (size_t i = 0; i < sizeof conventional_short / sizeof conventional_short[0] &&
				   n < PB_OPT_MAX_SHORT; i++)
			if (!strcmp(conventional_short[i].name, o->name) &&
			    !letter_declared(spec, conventional_short[i].letter) &&
			    !convention_taken_before(spec, o, conventional_short[i].letter))
				letters[n++] = conventional_short[i].letter;
	letters[n] = '\0';
	return n;
}

static const struct pb_opt *find_short(const struct pb_cmd_spec *spec, char c)
{
	if (c == help_option.short_name)
		return &help_option;
	char letters[PB_OPT_MAX_SHORT + 1];
	for (const struct pb_opt *o = spec->options; o && o->name; o++)
		if (pb_opt_short_letters(spec, o, letters) && strchr(letters, c))
			return o;
	return NULL;
}

static int unknown_option(const struct pb_cmd_spec *spec, const char *shown, size_t len,
			  struct pb_error *err)
{
	char typed[PB_SUGGEST_NAME_LEN];
	pb_format(typed, sizeof typed, "%.*s", (int)len, shown);
	struct pb_suggest near;
	pb_suggest_init(&near, typed);
	for (const struct pb_opt *o = spec->options; o && o->name; o++) {
		if (o->hidden)
			continue;
		char name[PB_SUGGEST_NAME_LEN];
		pb_format(name, sizeof name, "--%s", o->name);
		pb_suggest_consider(&near, name);
	}
	pb_suggest_consider(&near, "--help");
	char lister[64];
	pb_format(lister, sizeof lister, "`pesbench %s --help`", spec->name);
	return pb_suggest_fail(err, &near, "", "option", lister);
}

/* Bytes an option's value takes at o->at. */
static size_t value_size(const struct pb_opt *o)
{
	switch (o->kind) {
	case PB_OPT_FLAG:
		return sizeof(bool);
	case PB_OPT_STRING:
		return sizeof(const char *);
	case PB_OPT_U64:
	case PB_OPT_THREADS:
	case PB_OPT_PERIOD:
		return sizeof(uint64_t);
	case PB_OPT_U64_LIST:
	case PB_OPT_PERIOD_LIST:
		return o->max_n * sizeof(uint64_t);
	case PB_OPT_CALL:
		break;
	}
	return 0;
}

static int apply(const struct pb_cmd_spec *spec, const struct pb_opt *o, void *args,
		 const char *value, struct pb_error *err)
{
	/* A table pointing outside its command's arguments is a bug in the table, never
	 * something to write through. */
	bool list = o->kind == PB_OPT_U64_LIST || o->kind == PB_OPT_PERIOD_LIST;
	if (o->at + value_size(o) > spec->args_size || o->given_at > spec->args_size ||
	    (list && o->count_at + sizeof(unsigned) > spec->args_size) ||
	    (o->units_at && o->units_at - 1 + sizeof(unsigned) > spec->args_size))
		return pb_fail(err, PB_EXIT_FAILURE, 0, "option table of %s: --%s lies outside its "
			       "arguments", spec->name, o->name);
	char what[72];
	snprintf(what, sizeof what, "--%s", o->name);
	char *base = args;
	switch (o->kind) {
	case PB_OPT_FLAG:
		*(bool *)(base + o->at) = true;
		break;
	case PB_OPT_STRING:
		*(const char **)(base + o->at) = value;
		break;
	case PB_OPT_U64:
		if (pb_parse_u64(what, value, o->min, o->max, (uint64_t *)(base + o->at), err))
			return -1;
		break;
	case PB_OPT_THREADS:
		if (pb_parse_threads(what, value, (uint64_t *)(base + o->at), err))
			return -1;
		break;
	case PB_OPT_U64_LIST:
		if (pb_parse_u64_list(what, value, o->min, o->max, (uint64_t *)(base + o->at),
				      o->max_n, (unsigned *)(base + o->count_at), err))
			return -1;
		break;
	case PB_OPT_CALL:
		if (o->parse(args, value, err))
			return -1;
		break;
	case PB_OPT_PERIOD:
	case PB_OPT_PERIOD_LIST: {
		unsigned units = 0, *units_to = o->units_at ? (unsigned *)(base + o->units_at - 1)
							     : &units;
		*units_to = 0;
		if (o->kind == PB_OPT_PERIOD
			    ? pb_parse_period(what, value, o->min, o->max,
					      (uint64_t *)(base + o->at), units_to, err)
			    : pb_parse_period_list(what, value, o->min, o->max,
						   (uint64_t *)(base + o->at), o->max_n,
						   (unsigned *)(base + o->count_at), units_to, err))
			return -1;
		break;
	}
	}
	if (o->given_at)
		*(bool *)(base + o->given_at - 1) = true;
	return 0;
}

static int operand(const struct pb_cmd_spec *spec, void *args, const char *value,
		   struct pb_error *err)
{
	if (spec->positional)
		return spec->positional(args, value, err);
	return pb_fail(err, PB_EXIT_USAGE, 0, "unexpected argument '%s'", value);
}

enum pb_parse_result pb_options_parse(const struct pb_cmd_spec *spec, int argc, char **argv,
				      void *args, int *rest, struct pb_error *err)
{
	*rest = argc;
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i];
		if (!strcmp(arg, "--")) {
			*rest = i + 1;
			if (!spec->takes_command)
				/* "--" ends the options: what follows is operands, even "-x" */
				for (int k = i + 1; k < argc; k++)
					if (operand(spec, args, argv[k], err))
						return PB_PARSE_ERROR;
			break;
		}
		if (arg[0] != '-' || !arg[1]) {
			if (operand(spec, args, arg, err))
				return PB_PARSE_ERROR;
			continue;
		}
		const struct pb_opt *o;
		const char *eq = NULL;
		if (arg[1] != '-') {
			o = arg[2] ? NULL : find_short(spec, arg[1]);
			if (!o) {
				unknown_option(spec, arg, strlen(arg), err);
				return PB_PARSE_ERROR;
			}
		} else {
			eq = strchr(arg + 2, '=');
			size_t len = eq ? (size_t)(eq - arg - 2) : strlen(arg + 2);
			if (!len) {
				pb_fail(err, PB_EXIT_USAGE, 0, "malformed option '%s'", arg);
				return PB_PARSE_ERROR;
			}
			o = find_long(spec, arg + 2, len);
			if (!o) {
				unknown_option(spec, arg, len + 2, err);
				return PB_PARSE_ERROR;
			}
		}
		const char *value = NULL;
		if (o->kind == PB_OPT_FLAG) {
			if (eq) {
				pb_fail(err, PB_EXIT_USAGE, 0, "option --%s takes no value", o->name);
				return PB_PARSE_ERROR;
			}
		} else if (eq) {
			value = eq + 1;
		} else if (i + 1 < argc) {
			value = argv[++i];
		} else {
			pb_fail(err, PB_EXIT_USAGE, 0, "option --%s needs a value (--%s %s)", o->name,
				o->name, o->arg);
			return PB_PARSE_ERROR;
		}
		if (o == &help_option)
			return PB_PARSED_HELP;
		if (apply(spec, o, args, value, err))
			return PB_PARSE_ERROR;
	}
	/* Required options in table order: the first missing one is named. */
	for (const struct pb_opt *o = spec->options; o && o->name; o++) {
		if (!o->required)
			continue;
		const char *base = args;
		bool given = o->given_at ? *(const bool *)(base + o->given_at - 1)
			   : o->kind == PB_OPT_STRING ? *(const char *const *)(base + o->at) != NULL
			   : true;
		if (!given) {
			pb_fail(err, PB_EXIT_USAGE, 0, "%s", o->required);
			return PB_PARSE_ERROR;
		}
	}
	return PB_PARSED;
}

int pb_options_run(const struct pb_cmd_spec *spec, int argc, char **argv, void *args, int *rest)
{
	struct pb_error err = {0};
	switch (pb_options_parse(spec, argc, argv, args, rest, &err)) {
	case PB_PARSED:
		return -1;
	case PB_PARSED_HELP:
		pb_options_help(spec, stdout);
		return fflush(stdout) ? PB_EXIT_OUTPUT : PB_EXIT_OK;
	case PB_PARSE_ERROR:
		break;
	}
	return pb_cli_report(spec->name, &err);
}

/* "--name ARG", "-h, --help", "-f, -e, --facility SPEC" */
static void option_label(const struct pb_cmd_spec *spec, const struct pb_opt *o, char *buf,
			 size_t len)
{
	char letters[PB_OPT_MAX_SHORT + 1];
	size_t n = pb_opt_short_letters(spec, o, letters);
	buf[0] = '\0';
	for (size_t i = 0; i < n; i++)
		pb_append(buf, len, "-%c, ", letters[i]);
	pb_append(buf, len, "--%s%s%s", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
}

/* Words of text from column `col`, wrapped to HELP_WIDTH with continuation lines at `indent`. */
void pb_put_wrapped(FILE *out, const char *text, unsigned col, unsigned indent)
{
	const char *p = text;
	while (*p) {
		while (*p == ' ')
			p++;
		size_t w = strcspn(p, " ");
		if (!w)
			break;
		if (col > indent && col + 1 + w > HELP_WIDTH) {
			fprintf(out, "\n%*s", (int)indent, "");
			col = indent;
		} else if (col > indent) {
			fputc(' ', out);
			col++;
		}
		fprintf(out, "%.*s", (int)w, p);
		col += (unsigned)w;
		p += w;
	}
	fputc('\n', out);
}

/* The synopsis, as one string of words separated by single spaces except within an element. */
static void synopsis_lines(const struct pb_cmd_spec *spec, FILE *out, const char *prefix)
{
	char head[64];
	snprintf(head, sizeof head, "%spesbench %s", prefix, spec->name);
	unsigned indent = (unsigned)strlen(head) + 1, col = (unsigned)strlen(head);
	fputs(head, out);
	char element[160];
	const char *parts[3] = {spec->operands, NULL, spec->trailing};
	for (int stage = 0; stage < 3; stage++) {
		const struct pb_opt *o = stage == 1 ? spec->options : NULL;
		for (;;) {
			if (stage == 1) {
				if (!o || !o->name)
					break;
				if (o->hidden) {
					o++;
					continue;
				}
				char label[96];
				snprintf(label, sizeof label, "--%s%s%s", o->name, o->arg ? " " : "",
					 o->arg ? o->arg : "");
				snprintf(element, sizeof element, "%s%s%s%s", o->required ? "" : "[",
					 label, o->required ? "" : "]", o->repeatable ? "..." : "");
				o++;
			} else {
				if (!parts[stage])
					break;
				snprintf(element, sizeof element, "%s", parts[stage]);
				parts[stage] = NULL;
			}
			size_t w = strlen(element);
			if (col + 1 + w > HELP_WIDTH && col > indent) {
				fprintf(out, "\n%*s", (int)indent, "");
				col = indent;
			} else {
				fputc(' ', out);
				col++;
			}
			fputs(element, out);
			col += (unsigned)w;
		}
	}
	fputc('\n', out);
}

void pb_options_help(const struct pb_cmd_spec *spec, FILE *out)
{
	synopsis_lines(spec, out, "usage: ");
	if (spec->description)
		fprintf(out, "\n%s", spec->description);
	fputc('\n', out);
	if (spec->extra) {
		spec->extra(out);
		fputc('\n', out);
	}
	fprintf(out, "options:\n");
	unsigned column = 0;
	char label[128];
	for (const struct pb_opt *o = spec->options; o && o->name; o++) {
		if (o->hidden)
			continue;
		option_label(spec, o, label, sizeof label);
		if (strlen(label) > column)
			column = (unsigned)strlen(label);
	}
	if (column > 22)
		column = 22;
	column += 4;
	for (const struct pb_opt *o = spec->options;; o++) {
		if (!o || !o->name)
			o = &help_option;
		if (o->hidden)
			continue;
		option_label(spec, o, label, sizeof label);
		fprintf(out, "  %s", label);
		unsigned col = 2 + (unsigned)strlen(label);
		if (col + 2 > column) {
			fprintf(out, "\n%*s", (int)column, "");
		} else {
			fprintf(out, "%*s", (int)(column - col), "");
		}
		pb_put_wrapped(out, o->help ? o->help : "", column, column);
		if (o == &help_option)
			break;
	}
	if (spec->epilogue)
		fprintf(out, "\n%s", spec->epilogue);
}

/* Plain text as troff: backslashes and hyphens literal, no line read as a request. */
static void roff_escaped(FILE *out, const char *text, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		char c = text[i];
		if (i == 0 && (c == '.' || c == '\''))
			fputs("\\&", out);
		if (c == '\\')
			fputs("\\e", out);
		else if (c == '-')
			fputs("\\-", out);
		else
			fputc(c, out);
	}
}

void pb_roff_text(FILE *out, const char *text)
{
	bool verbatim = false;
	for (const char *p = text; p && *p;) {
		size_t len = strcspn(p, "\n");
		bool indented = len && p[0] == ' ';
		if (indented != verbatim) {
			fputs(indented ? ".nf\n" : ".fi\n", out);
			verbatim = indented;
		}
		if (!len) {
			fputs(verbatim ? "\n" : ".PP\n", out);
		} else {
			roff_escaped(out, p, len);
			fputc('\n', out);
		}
		p += len;
		if (*p)
			p++;
	}
	if (verbatim)
		fputs(".fi\n", out);
}

static void roff_option(FILE *out, const struct pb_cmd_spec *spec, const struct pb_opt *o)
{
	fputs(".TP\n", out);
	char letters[PB_OPT_MAX_SHORT + 1];
	size_t n = pb_opt_short_letters(spec, o, letters);
	for (size_t i = 0; i < n; i++)
		fprintf(out, "\\fB\\-%c\\fR, ", letters[i]);
	fputs("\\fB\\-\\-", out);
	roff_escaped(out, o->name, strlen(o->name));
	fputs("\\fR", out);
	if (o->arg) {
		fputs(" \\fI", out);
		roff_escaped(out, o->arg, strlen(o->arg));
		fputs("\\fR", out);
	}
	fputc('\n', out);
	roff_escaped(out, o->help ? o->help : "", o->help ? strlen(o->help) : 0);
	fputc('\n', out);
}

void pb_options_man(const struct pb_cmd_spec *spec, FILE *out)
{
	fprintf(out, ".SS \"pesbench %s\"\n", spec->name);
	pb_roff_text(out, spec->summary);
	fputs(".PP\n.nf\n", out);
	char *synopsis = NULL;
	size_t size = 0;
	FILE *mem = open_memstream(&synopsis, &size);
	if (mem) {
		synopsis_lines(spec, mem, "usage: ");
		if (spec->extra) {
			fputc('\n', mem);
			spec->extra(mem);
		}
		fclose(mem);
		roff_escaped(out, synopsis, size);
		free(synopsis);
	}
	fputs(".fi\n", out);
	if (spec->description) {
		fputs(".PP\n", out);
		pb_roff_text(out, spec->description);
	}
	for (const struct pb_opt *o = spec->options; o && o->name; o++)
		if (!o->hidden)
			roff_option(out, spec, o);
	roff_option(out, spec, &help_option);
	if (spec->epilogue) {
		fputs(".PP\n", out);
		pb_roff_text(out, spec->epilogue);
	}
}

void pb_options_list(const struct pb_cmd_spec *spec, FILE *out)
{
	for (const struct pb_opt *o = spec->options;; o++) {
		if (!o || !o->name)
			o = &help_option;
		char example[32];
		const char *shown = o->example;
		if (!shown && (o->kind == PB_OPT_U64 || o->kind == PB_OPT_THREADS ||
			       o->kind == PB_OPT_U64_LIST || o->kind == PB_OPT_PERIOD ||
			       o->kind == PB_OPT_PERIOD_LIST)) {
			snprintf(example, sizeof example, "%llu",
				 (unsigned long long)(o->kind == PB_OPT_THREADS ? 1 : o->min));
			shown = example;
		}
		if (!shown && o->kind == PB_OPT_STRING)
			shown = "x";
		fprintf(out, "%s\t--%s\t%s\t%s\t%s%s%s\t%s\n", spec->name, o->name,
			o->arg ? o->arg : "-", o->kind == PB_OPT_FLAG ? "-" : shown ? shown : "?",
			o->hidden ? "hidden" : "", o->hidden && o->required ? "," : "",
			o->required ? "required" : !o->hidden ? "-" : "", o->help ? o->help : "");
		if (o == &help_option)
			break;
	}
}

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

int pb_cli_report(const char *command, const struct pb_error *err)
{
	fprintf(stderr, "pesbench %s: %s\n", command, err->msg[0] ? err->msg : "failed");
	return err->code ? err->code : PB_EXIT_FAILURE;
}

int pb_cli_print_json(const char *command, json_t *doc, int indent)
{
	errno = 0;
	int rc = doc ? json_dumpf(doc, stdout, JSON_INDENT(indent) | JSON_PRESERVE_ORDER) : -1;
	json_decref(doc);
	if (rc || fputc('\n', stdout) == EOF || fflush(stdout)) {
		struct pb_error err = {0};
		pb_fail(&err, PB_EXIT_OUTPUT, errno, "cannot write the JSON to standard output%s%s",
			errno ? ": " : "", errno ? strerror(errno) : "");
		return pb_cli_report(command, &err);
	}
	return PB_EXIT_OK;
}
