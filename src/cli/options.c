/* The option parser: a command's table (struct pb_cmd_spec) against its argv. Help and man
 * pages from the same table are options_help.c's; the values' own parsers (numbers, periods,
 * lists, threads) are option_values.c's. */
#include "cli/options.h"

#include "cli/output.h"
#include "util/suggest.h"
#include "util/text.h"

#include <stdio.h>
#include <string.h>

const struct pb_opt pb_help_option = {
	.name = "help", .short_name = 'h', .kind = PB_OPT_FLAG, .help = "this text",
};

static const struct pb_opt *find_long(const struct pb_cmd_spec *spec, const char *name,
				      size_t len)
{
	if (len == 4 && !strncmp(name, "help", 4))
		return &pb_help_option;
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
	if (c == pb_help_option.short_name)
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
	if (o != &pb_help_option && !o->hidden)
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
	if (c == pb_help_option.short_name)
		return &pb_help_option;
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
		if (o == &pb_help_option)
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
