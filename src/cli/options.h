/* Command-line parsing shared by every subcommand: GNU-style long options ("--name value",
 * "--name=value"), positionals, and "--" before a target command. Values are checked here so
 * every command rejects bad numbers with the same clear words. */
#ifndef PB_OPTIONS_H
#define PB_OPTIONS_H

#include "util/error.h"

#include <stdbool.h>
#include <stdint.h>

struct pb_option_parser {
	int argc;
	char **argv;
	int i;
	const char *const *flags;   /* options that take no value (NULL-terminated) */
	int rest;                   /* index after "--", or argc */
	struct pb_error err;
};

/* argv[0] is the command name; flags lists the value-less options ("json", "help", ...). */
void pb_options_begin(struct pb_option_parser *op, int argc, char **argv,
		      const char *const *flags);
/* 1: *name is an option (without "--"; *value is NULL for a flag) or "" for a positional in
 * *value; 0: no more (a "--" stops, see rest); -1: error in op->err. */
int pb_options_next(struct pb_option_parser *op, const char **name, const char **value);

/* Decimal or 0x hex, with an optional k/M/G suffix (10^3, 10^6, 10^9); within [min, max]. */
int pb_parse_u64(const char *what, const char *text, uint64_t min, uint64_t max, uint64_t *out,
		 struct pb_error *err);
/* A comma-separated list of such numbers; at most max_n. */
int pb_parse_u64_list(const char *what, const char *text, uint64_t min, uint64_t max,
		      uint64_t *out, unsigned max_n, unsigned *n, struct pb_error *err);
/* A thread count: 1..number of CPUs (pinned threads sharing a CPU would distort every figure). */
int pb_parse_threads(const char *what, const char *text, uint64_t *out, struct pb_error *err);

#endif
