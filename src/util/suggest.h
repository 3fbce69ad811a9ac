/* "Did you mean": every name a user types (a facility, an experiment, a workload, an event, a
 * label, an option, a command) that is not known gets one short message from here, naming the
 * nearest known names and the command that lists them all, instead of the whole list. */
#ifndef PB_SUGGEST_H
#define PB_SUGGEST_H

#include "util/error.h"

#include <stdbool.h>
#include <stddef.h>

#define PB_SUGGEST_MAX 3
#define PB_SUGGEST_NAME_LEN 96

struct pb_suggest {
	char typed[PB_SUGGEST_NAME_LEN];
	struct {
		char name[PB_SUGGEST_NAME_LEN];
		int score;               /* lower is nearer */
		unsigned distance;       /* edit distance */
		bool starts;             /* what was typed starts this name */
	} best[PB_SUGGEST_MAX];
	unsigned n;                      /* suggestions kept */
	unsigned known;                  /* names considered */
	char all[160];                   /* the names considered, while they fit */
	bool all_cut;                    /* some did not fit */
};

void pb_suggest_init(struct pb_suggest *s, const char *typed);
/* Weighs one known name against what was typed; an exact match (case aside) is the nearest. */
void pb_suggest_consider(struct pb_suggest *s, const char *name);
/* The nearest names, ", "-separated, into buf ("" when none is near enough). */
void pb_suggest_names(const struct pb_suggest *s, char *buf, size_t len);

/* Fails with PB_EXIT_USAGE and one line: "unknown WHAT 'TYPED'; did you mean A or B? LISTER
 * lists them all" (or "... known: a, b, c" when every name fits in a short line). prefix,
 * when not NULL, starts the message ("sw:foo: "). Returns -1. */
int pb_suggest_fail(struct pb_error *err, const struct pb_suggest *s, const char *prefix,
		    const char *what, const char *lister);

#endif
