/* The words after a facility's name ("ibs-op:cycles:ldlat=256:swfilt"), parsed from one table per
 * facility: which words exist, what each sets in the spec, its range, and a line of help. Every
 * facility parses through pb_spec_options_parse, so the words, their checks, the "valid: ..."
 * list of an error and the documentation cannot drift apart. */
#ifndef PB_SPEC_OPTIONS_H
#define PB_SPEC_OPTIONS_H

#include "util/error.h"

#include <stddef.h>
#include <stdint.h>

struct pb_spec;

enum pb_spec_option_kind {
	PB_SPEC_FLAG,    /* "swfilt": sets .bits in spec->options */
	PB_SPEC_CHOICE,  /* "cycles", "task-clock": one of the table's exclusive words naming what
			  * is sampled; becomes spec->event, stores .value in .field, sets .bits */
	PB_SPEC_NUMBER,  /* "ldlat=N": a number in [min, max] stored in .field; sets .bits */
	PB_SPEC_TEXT,    /* "subset=CLASS": the value is handed to .parse; sets .bits */
};

/* A member of struct pb_spec that an option stores into. */
struct pb_spec_field {
	unsigned short offset, size;   /* size 0: none */
};
#define PB_SPEC_FIELD(member)                                                                  \
	{ offsetof(struct pb_spec, member), sizeof(((struct pb_spec *)0)->member) }

struct pb_spec_option {
	const char *word;
	enum pb_spec_option_kind kind;
	const char *help;          /* what it does, for the documentation */
	uint64_t bits;             /* spec->options bits it sets */
	struct pb_spec_field field;
	uint64_t value;            /* CHOICE: stored in field */
	uint64_t min, max;         /* NUMBER: the accepted range */
	int base;                  /* NUMBER: 0 (decimal, 0x for hexadecimal) or 16 */
	const char *arg;           /* NUMBER, TEXT: the value's name in lists ("N", "HEX");
				    * NUMBER without it: "min..max" */
	const char *about;         /* NUMBER: what the value is, for the error ("a number of
				    * cycles"); the message says the range when max is not the
				    * largest value */
	const char *note;          /* NUMBER: appended to the error in parentheses */
	const char *bad_value;     /* NUMBER: the whole error instead ("pp must be 1, 2 or 3") */
	/* NUMBER: a check before the range's, for a value needing its own message; TEXT: the
	 * parser of the value. ctx is pb_spec_options_parse's. */
	int (*check)(struct pb_spec *spec, uint64_t value, void *ctx, struct pb_error *err);
	int (*parse)(struct pb_spec *spec, const char *value, void *ctx, struct pb_error *err);
};

struct pb_spec_options {
	const struct pb_spec_option *options;
	size_t n;
	const char *what;          /* "ibs-op option", "clock": names an unknown word in errors */
	const char *hint;          /* after an unknown word; NULL: "valid: " and the words */
	const char *default_choice; /* the CHOICE taken when the spec names none; NULL: none */
	const char *exclusive_why; /* why two CHOICE words exclude each other */
	/* A word that is no option (an event name's parts): taken by this hook, empty words too.
	 * NULL: an unknown word is an error and empty words are skipped. */
	int (*other)(struct pb_spec *spec, const char *word, void *ctx, struct pb_error *err);
	/* The error for an unknown word, NULL: the standard one (what, hint or valid list). */
	int (*unknown)(const struct pb_spec_options *t, struct pb_spec *spec, const char *word,
		       struct pb_error *err);
};

#define PB_SPEC_OPTIONS(table, ...)                                                            \
	{ .options = (table), .n = sizeof(table) / sizeof((table)[0]), __VA_ARGS__ }

/* Parses args (what follows "name:", NULL for nothing) word by word into spec. ctx is handed
 * to the hooks. */
int pb_spec_options_parse(const struct pb_spec_options *t, struct pb_spec *spec, const char *args,
			  void *ctx, struct pb_error *err);
/* "ops, cycles, l3missonly, swfilt, ldlat=128..2048": every word, as a user writes it. */
void pb_spec_options_list(const struct pb_spec_options *t, char *buf, size_t len);
/* The i-th CHOICE word of the table, NULL past the last. */
const char *pb_spec_options_choice(const struct pb_spec_options *t, size_t i);
/* One word as a user writes it ("ldlat=128..2048"). */
void pb_spec_option_usage(const struct pb_spec_option *o, char *buf, size_t len);

/* An event name given in parts (hw:INST_RETIRED:ANY_P): the `other` hook of hw and pebs joins
 * the parts with ':' into ctx, a struct pb_spec_event_words. */
struct pb_spec_event_words {
	char text[128];
	size_t used;
	unsigned n;
};
int pb_spec_event_word(struct pb_spec *spec, const char *word, void *ctx, struct pb_error *err);

#endif
