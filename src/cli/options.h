/* Command-line parsing shared by every subcommand. Each command declares its options once, as a
 * table (struct pb_cmd_spec); the same table is what the parser accepts, what `--help` prints
 * and what the man page lists, so the three cannot drift. GNU-style long options
 * ("--name value", "--name=value"), "-h", positionals, and "--" before a target command.
 * Values are checked here so every command rejects bad numbers with the same clear words. */
#ifndef PB_OPTIONS_H
#define PB_OPTIONS_H

#include "util/error.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum pb_opt_kind {
	PB_OPT_FLAG,     /* bool = true; takes no value */
	PB_OPT_STRING,   /* const char * = the value as given */
	PB_OPT_U64,      /* uint64_t, pb_parse_u64 within [min, max] */
	PB_OPT_THREADS,  /* uint64_t, pb_parse_threads: 1..CPUs */
	PB_OPT_U64_LIST, /* uint64_t[max_n] with its unsigned count at count_at */
	PB_OPT_CALL,     /* parse(args, value, err): words, specs, anything with its own parser */
	PB_OPT_PERIOD,   /* uint64_t, pb_parse_period within [min, max]; its units at units_at */
	PB_OPT_PERIOD_LIST, /* uint64_t[max_n] of pb_parse_period, count at count_at, units at
			     * units_at (every element's, or'ed) */
};

/* How a period was written (or'ed over a list): a plain number means the facility's own unit;
 * a time (1ms) only suits a facility whose period is in ns, a count suffix (10k) only one whose
 * period counts events. The command checks it against its facility: pb_period_check. */
enum pb_period_units {
	PB_PERIOD_PLAIN = 0,
	PB_PERIOD_TIME = 1,   /* ns, us, ms, s */
	PB_PERIOD_COUNT = 2,  /* k, M, G */
};

struct pb_opt {
	const char *name;  /* long name, without "--" */
	char short_name;   /* 0: none */
	const char *arg;   /* the value's name in the help ("SPEC"); NULL for a flag */
	const char *help;  /* one paragraph; --help wraps it */
	enum pb_opt_kind kind;
	size_t at;         /* where the value goes in the command's argument struct (PB_AT) */
	size_t given_at;   /* PB_GIVEN: a bool set when the option is seen; 0 for none */
	size_t count_at;   /* PB_U64_LIST: an unsigned count */
	uint64_t min, max;
	unsigned max_n;
	size_t units_at;   /* PB_UNITS: PB_OPT_PERIOD*: an unsigned (enum pb_period_units); 0 none */
	int (*parse)(void *args, const char *value, struct pb_error *err);
	/* A value the option accepts, for the test that runs every option (tests/cli_options.sh);
	 * kinds with a range use min when NULL. */
	const char *example;
	/* Non-NULL: the option must be given, and this is the error when it is not. */
	const char *required;
	bool repeatable;   /* shown as [--name ARG]... */
	bool hidden;       /* for pesbench's own use (verify --run-once): not in help or man */
};

/* The field of T where an option's value goes, type-checked: a field of another type than
 * `type` is a compile error (comparison of distinct pointer types), not a silent overwrite. */
#define PB_AT(T, field, type) \
	(offsetof(T, field) + 0 * sizeof((type *)0 == &((T *)0)->field))
#define PB_GIVEN(T, field) (PB_AT(T, field, bool) + 1)
#define PB_COUNT(T, field) PB_AT(T, field, unsigned)
#define PB_UNITS(T, field) (PB_AT(T, field, unsigned) + 1)

struct pb_cmd_spec {
	const char *name;        /* "run" */
	const char *summary;     /* one line, for `pesbench --help` and the man page */
	const char *operands;    /* before the options in the synopsis: "[EXPERIMENT...]" */
	const char *trailing;    /* after them: "-- CMD [ARGS...]" */
	const char *description; /* between the synopsis and the options */
	/* Further text printed before the options (run's experiment list), or NULL. */
	void (*extra)(FILE *out);
	const struct pb_opt *options; /* ends with {0} */
	size_t args_size;        /* sizeof the argument struct the options fill */
	const char *epilogue;    /* after the options: exit codes, schemas */
	/* A positional argument; NULL: "unexpected argument 'X'". */
	int (*positional)(void *args, const char *value, struct pb_error *err);
	/* Whether what follows "--" is a command (plan, profile); otherwise operands. */
	bool takes_command;
};

/* -h, --help: every command takes it, after the options of its table. */
extern const struct pb_opt pb_help_option;

/* What parsing ended with. */
enum pb_parse_result {
	PB_PARSED,      /* go on; *rest is the index after "--" (argc if none) */
	PB_PARSED_HELP, /* --help was given: print the help, exit 0 */
	PB_PARSE_ERROR, /* err holds the message and exit code */
};

/* argv[0] is the command name. Fills args through the table; stops at --help (options before
 * it are parsed and checked first). Prints nothing. */
enum pb_parse_result pb_options_parse(const struct pb_cmd_spec *spec, int argc, char **argv,
				      void *args, int *rest, struct pb_error *err);
/* pb_options_parse, printing the help on --help and reporting an error as "pesbench NAME:
 * message". Returns -1 to go on, or the exit code the command returns. */
int pb_options_run(const struct pb_cmd_spec *spec, int argc, char **argv, void *args, int *rest);

/* The short letters of option o in command spec: its own, then the conventional ones
 * (-f facility, -e facility or event as perf's -e, -c period as perf's -c, -o out or output,
 * -w workload, -t threads, -r runs, -q quiet) where the table gives the letter to no other
 * option. */
#define PB_OPT_MAX_SHORT 3
size_t pb_opt_short_letters(const struct pb_cmd_spec *spec, const struct pb_opt *o,
			    char letters[PB_OPT_MAX_SHORT + 1]);

/* Words of text from column col, wrapped at 80 columns with continuation lines at indent, and
 * a newline. */
void pb_put_wrapped(FILE *out, const char *text, unsigned col, unsigned indent);

/* `pesbench NAME --help`, generated from the table. */
void pb_options_help(const struct pb_cmd_spec *spec, FILE *out);
/* The command's section of pesbench(1), in roff. */
void pb_options_man(const struct pb_cmd_spec *spec, FILE *out);
/* One line per option, --help included: "NAME\t--option\tARG\tEXAMPLE\tFLAGS\tHELP" (ARG and
 * EXAMPLE "-" for a flag; FLAGS: "hidden", "required" or "-"). */
void pb_options_list(const struct pb_cmd_spec *spec, FILE *out);
/* Text as roff: blank lines are paragraphs, indented lines kept as they are. */
void pb_roff_text(FILE *out, const char *text);

/* Decimal or 0x hex, with an optional k/M/G suffix (10^3, 10^6, 10^9); within [min, max]. */
int pb_parse_u64(const char *what, const char *text, uint64_t min, uint64_t max, uint64_t *out,
		 struct pb_error *err);
/* A sampling period: a number as pb_parse_u64 reads it (10000, 10k, 0x100), or a time with
 * its unit, stored in ns: 500ns, 100us, 1ms, 2s. *units says which (enum pb_period_units). */
int pb_parse_period(const char *what, const char *text, uint64_t min, uint64_t max,
		    uint64_t *out, unsigned *units, struct pb_error *err);
/* A comma-separated list of such periods, at most max_n; *units or'ed over them. */
int pb_parse_period_list(const char *what, const char *text, uint64_t min, uint64_t max,
			 uint64_t *out, unsigned max_n, unsigned *n, unsigned *units,
			 struct pb_error *err);
/* Whether a period written with units suits the facility of spec_text (its period unit, from
 * the facility's descriptor): a time for one that counts events, or a count suffix for one
 * whose period is in ns, is refused with what to write instead. An unknown facility passes
 * (its own parser names it). */
int pb_period_check(const char *what, unsigned units, const char *spec_text,
		    struct pb_error *err);
/* A comma-separated list of such numbers; at most max_n. */
int pb_parse_u64_list(const char *what, const char *text, uint64_t min, uint64_t max,
		      uint64_t *out, unsigned max_n, unsigned *n, struct pb_error *err);
/* A thread count: 1..number of CPUs (pinned threads sharing a CPU would distort every figure). */
int pb_parse_threads(const char *what, const char *text, uint64_t *out, struct pb_error *err);

#endif
