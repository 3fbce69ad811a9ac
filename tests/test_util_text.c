/* The name-list joiner of error messages ("known: a, b, c") and the appending formatter. */
#include "check.h"
#include "util/text.h"

int main(void)
{
	char buf[64] = "";
	pb_list_add(buf, sizeof buf, "timer");
	CHECK(!strcmp(buf, "timer"));
	pb_list_add(buf, sizeof buf, "sw");
	pb_list_add(buf, sizeof buf, "bp");
	CHECK(!strcmp(buf, "timer, sw, bp"));

	/* Exactly full: "ab, cd" is 6 characters and a NUL. */
	char exact[7] = "";
	pb_list_add(exact, sizeof exact, "ab");
	pb_list_add(exact, sizeof exact, "cd");
	CHECK(!strcmp(exact, "ab, cd"));

	/* A name that does not fit is never cut: whole names only, then "...", and nothing after
	 * that, even a name short enough to fit. */
	char small[17] = "";
	pb_list_add(small, sizeof small, "alpha");
	pb_list_add(small, sizeof small, "beta");     /* "alpha, beta" = 11 */
	pb_list_add(small, sizeof small, "gamma");    /* would be 18 */
	CHECK(!strcmp(small, "alpha, beta, ..."));
	pb_list_add(small, sizeof small, "x");
	CHECK(!strcmp(small, "alpha, beta, ..."));

	/* No room for ", ..." after the names: names are dropped to make room for the mark. */
	char tight[14] = "";
	pb_list_add(tight, sizeof tight, "alpha");
	pb_list_add(tight, sizeof tight, "beta");     /* "alpha, beta" = 11, 2 left */
	pb_list_add(tight, sizeof tight, "gamma");
	CHECK(!strcmp(tight, "alpha, ..."));

	/* A name ending in "..." is a name, not the mark. */
	char dots[64] = "";
	pb_list_add(dots, sizeof dots, "sw:a|b|...");
	pb_list_add(dots, sizeof dots, "bp:w");
	CHECK(!strcmp(dots, "sw:a|b|..., bp:w"));

	char one[4] = "";
	pb_list_add(one, sizeof one, "toolong");
	CHECK(!strcmp(one, "..."));

	char app[8] = "ab";
	pb_append(app, sizeof app, "%s", "cdefghij");
	CHECK(!strcmp(app, "abcdefg"));
	return pb_check_done("util_text");
}
