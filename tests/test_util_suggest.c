/* "Did you mean": the nearest known names to a mistyped one, and the one-line message. Each
 * case is a name a user typed in the issue that asked for it (ibs, cycle, cpu-clok) or one
 * that must not find a suggestion (a name unlike any known). */
#include "check.h"
#include "util/suggest.h"

#include <string.h>

static const char *const facilities[] = {"timer", "sw", "bp", "uprobe", "hw", "pebs",
					 "ibs-op", "ibs-fetch", "spe", "cycles", "cpu-clock",
					 "task-clock", "page-faults", NULL};

static void suggest(const char *typed, char *near, size_t len)
{
	struct pb_suggest s;
	pb_suggest_init(&s, typed);
	for (unsigned i = 0; facilities[i]; i++)
		pb_suggest_consider(&s, facilities[i]);
	pb_suggest_names(&s, near, len);
}

int main(void)
{
	char near[512];
	/* the start of a name: every name it starts, in the order considered */
	suggest("ibs", near, sizeof near);
	CHECK_MSG(!strcmp(near, "ibs-op or ibs-fetch"), "ibs: '%s'", near);
	/* one letter off */
	suggest("cycle", near, sizeof near);
	CHECK_MSG(!strcmp(near, "cycles"), "cycle: '%s'", near);
	suggest("cpu-clok", near, sizeof near);
	CHECK_MSG(!strcmp(near, "cpu-clock"), "cpu-clok: '%s'", near);
	suggest("timr", near, sizeof near);
	CHECK_MSG(!strcmp(near, "timer"), "timr: '%s'", near);
	/* case does not matter */
	suggest("PEBS", near, sizeof near);
	CHECK_MSG(!strcmp(near, "pebs"), "PEBS: '%s'", near);
	/* nothing near: no suggestion, rather than the least far of unrelated names */
	suggest("frobnicate", near, sizeof near);
	CHECK_MSG(!strcmp(near, ""), "frobnicate: '%s'", near);
	suggest("x", near, sizeof near);
	CHECK_MSG(!strcmp(near, ""), "x: '%s'", near);
	/* two letters off a two-letter name is another name, not a typo */
	suggest("bq", near, sizeof near);
	CHECK_MSG(!strcmp(near, "bp"), "bq: '%s'", near);
	suggest("zz", near, sizeof near);
	CHECK_MSG(!strcmp(near, ""), "zz: '%s'", near);

	/* names sharing a long start: only the nearest, not those as far as another name */
	struct pb_suggest s;
	pb_suggest_init(&s, "pb_wl_accuracy_jmp");
	pb_suggest_consider(&s, "pb_wl_accuracy_jump");
	pb_suggest_consider(&s, "pb_wl_accuracy_chase");
	pb_suggest_consider(&s, "pb_wl_accuracy_ret");
	pb_suggest_names(&s, near, sizeof near);
	CHECK_MSG(!strcmp(near, "pb_wl_accuracy_jump"), "label: '%s'", near);

	/* the message: short, the nearest names and where the whole list is */
	struct pb_error err = {0};
	pb_suggest_init(&s, "ibs");
	for (unsigned i = 0; facilities[i]; i++)
		pb_suggest_consider(&s, facilities[i]);
	CHECK(pb_suggest_fail(&err, &s, "", "facility", "`pesbench facilities`") == -1);
	CHECK(err.code == PB_EXIT_USAGE);
	CHECK_MSG(!strcmp(err.msg, "unknown facility 'ibs'; did you mean ibs-op or ibs-fetch? "
			  "`pesbench facilities` lists them all"), "%s", err.msg);
	CHECK(strlen(err.msg) < 100);
	/* no suggestion, a long list: the lister only */
	pb_suggest_init(&s, "blah");
	for (unsigned i = 0; facilities[i]; i++)
		pb_suggest_consider(&s, facilities[i]);
	pb_suggest_fail(&err, &s, "", "facility", "`pesbench facilities`");
	CHECK_MSG(!strcmp(err.msg, "unknown facility 'blah'; `pesbench facilities` lists them all"),
		  "%s", err.msg);
	/* with the prefix; an option is shown as typed */
	pb_suggest_init(&s, "--jsn");
	pb_suggest_consider(&s, "--json");
	pb_suggest_consider(&s, "--help");
	pb_suggest_fail(&err, &s, "x: ", "option", "`pesbench x --help`");
	CHECK_MSG(!strcmp(err.msg, "x: unknown option --jsn; did you mean --json? `pesbench x "
			  "--help` lists them all"), "%s", err.msg);
	/* nothing near, a short list: shown whole */
	pb_suggest_init(&s, "--frob");
	pb_suggest_consider(&s, "--json");
	pb_suggest_consider(&s, "--help");
	pb_suggest_fail(&err, &s, "", "option", "`pesbench x --help`");
	CHECK_MSG(!strcmp(err.msg, "unknown option --frob; known: --json, --help"), "%s", err.msg);
	/* a name too long for the buffers is cut, never overrun */
	char longname[400];
	memset(longname, 'a', sizeof longname - 1);
	longname[sizeof longname - 1] = '\0';
	pb_suggest_init(&s, longname);
	pb_suggest_consider(&s, longname);
	pb_suggest_fail(&err, &s, "", "facility", "`pesbench facilities`");
	CHECK(strlen(err.msg) < sizeof err.msg);
	return pb_check_done("util_suggest");
}
