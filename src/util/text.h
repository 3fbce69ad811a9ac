#ifndef PB_TEXT_H
#define PB_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* snprintf for display text: a text too long for buf is cut short there, and counted. */
void pb_format(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* How many texts pb_format and pb_append cut to fit their buffers since the program started,
 * and the start of the last one. A cut hides the end of what was said (a cost fit's note lost
 * its fourth left-out pair at 480 bytes), so the tests fail when one cut anything
 * (tests/lib/check.c); a cut that is meant (a progress line at the terminal's width) is made
 * otherwise. */
extern unsigned long pb_text_cuts;
extern char pb_text_last_cut[96];

/* v by fmt (one floating conversion), or whole when fmt would write an exponent: a reader
 * compares 11640 with 2721, or 100 % with 98 %, at a glance, not 1.164e+04 or 1e+02. */
void pb_format_number(char *buf, size_t len, const char *fmt, double v);
/* The same into buf (PB_NUM_LEN bytes), returned: a figure inside a longer message. */
#define PB_NUM_LEN 48
const char *pb_num(char *buf, const char *fmt, double v);
/* "v ±ci": both to the place of ci's second significant digit, so that no digit of v is shown
 * finer than its interval knows it (32.2 ±2.1, not 32.24 ±2.1; 98.0 ±2.5, not 98.000 ±2.5;
 * 99.6 ±1.0; 16270 ±180, not 16273 ±184). Without a positive, finite ci: v by fmt (as pb_format_number), then " ±ci"
 * when ci is 0. */
void pb_format_value_ci(char *buf, size_t len, const char *fmt, double v, double ci);
/* A time of ns ±ci (NAN: no interval) by pb_format_value_ci in the unit of its size, ns, µs,
 * ms or s, which it ends with: a 30 µs run beside a 30 ms one reads "30.01 ±0.44 µs", not
 * "0.03001 ±0.00044" in a column of milliseconds. */
void pb_format_duration_ci(char *buf, size_t len, double ns, double ci);

/* Where a cut of UTF-8 text s may fall at or before i (floor) or at or after i (ceil, at most
 * the NUL): never inside a character. s[i] must be readable (i <= strlen(s)). */
size_t pb_utf8_floor(const char *s, size_t i);
size_t pb_utf8_ceil(const char *s, size_t i);
/* The columns the first n bytes of UTF-8 text s take on a terminal: one a character ("±" and
 * "µ" are two bytes each). */
int pb_utf8_columns(const char *s, size_t n);

/* Appends to the text already in buf, cut short where it would not fit. */
void pb_append(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Adds name to the ", "-separated list in buf (start with ""): the "known: a, b, c" of an error
 * message. A name that does not fit is left out and the list ends in "..." instead, so a reader
 * never takes a cut word or a short list for the whole. */
void pb_list_add(char *buf, size_t len, const char *name);

/* argv as a shell would take it back: words joined by spaces, a word with anything but
 * letters, digits and -_./=:,+@% in it single-quoted. Whole words only: when the next would
 * not fit, the text ends in " ..." instead (a reader must never take a cut command for the
 * whole). */
void pb_command_text(char *buf, size_t len, char *const argv[]);

/* The edit distance of a and b (insertions, deletions, substitutions), ignoring case when
 * fold_case: how far a mistyped name is from a known one. Names are short; either longer than
 * PB_EDIT_DISTANCE_MAX_LEN characters is PB_EDIT_DISTANCE_FAR, farther than any suggestion. */
#define PB_EDIT_DISTANCE_MAX_LEN 127
#define PB_EDIT_DISTANCE_FAR 1000u
unsigned pb_edit_distance(const char *a, const char *b, bool fold_case);

/* n bytes as lower-case hex into out, which holds 2 n + 1 (a build id, a digest). */
void pb_hex(char *out, const unsigned char *bytes, size_t n);

/* The terminal width pesbench's text keeps to. */
#define PB_TEXT_WIDTH 100
/* first, then text wrapped at PB_TEXT_WIDTH columns at its spaces (never inside a figure: a
 * number, its "±" and interval, its unit), every line after the first indented by indent. */
void pb_text_wrapped(FILE *out, const char *first, const char *text, int indent);
/* One entry of a listing: indent spaces, name padded to width, a space, then text wrapped
 * under its own start. */
void pb_text_entry(FILE *out, int indent, const char *name, int width, const char *text);

#endif
