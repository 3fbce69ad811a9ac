#include "util/suggest.h"

#include "util/text.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

void pb_suggest_init(struct pb_suggest *s, const char *typed)
{
	memset(s, 0, sizeof *s);
	snprintf(s->typed, sizeof s->typed, "%s", typed ? typed : "");
}

static unsigned common_prefix(const char *a, const char *b)
{
	unsigned n = 0;
	while (a[n] && b[n] && tolower((unsigned char)a[n]) == tolower((unsigned char)b[n]))
		n++;
	return n;
}

/* How near name is to what was typed, or -1 when it is no suggestion. A typo is a small edit
 * distance: at most a third of the typed length, and at least 1 (2 from 6 characters on; 0 for
 * a single letter), so "timr" finds "timer" but "bp" does not find "sw" nor "z" find "w".
 * Typing the start of a name ("ibs" for "ibs-op") is a suggestion whatever the distance. */
static int score(const char *typed, const char *name, unsigned *distance, bool *starts_out)
{
	size_t len = strlen(typed);
	if (!len)
		return -1;
	unsigned d = pb_edit_distance(typed, name, true);
	unsigned prefix = common_prefix(typed, name);
	unsigned limit = (unsigned)(len / 3);
	/* one typed letter off another is no typo of it */
	if (limit < 1 && len >= 2)
		limit = 1;
	if (len >= 6 && limit < 2)
		limit = 2;
	bool starts = prefix == len && len >= 2;
	if (d > limit && !starts)
		return -1;
	*distance = d;
	*starts_out = starts;
	/* nearer first; between equals, the longer shared start (never negative: -1 is none) */
	return (int)d * 128 + 127 - (int)(prefix < 127 ? prefix : 127);
}

void pb_suggest_consider(struct pb_suggest *s, const char *name)
{
	if (!name || !*name)
		return;
	s->known++;
	if (!s->all_cut) {
		size_t used = strlen(s->all);
		if (used + 2 + strlen(name) < sizeof s->all)
			pb_append(s->all, sizeof s->all, "%s%s", used ? ", " : "", name);
		else
			s->all_cut = true;
	}
	unsigned d = 0;
	bool starts = false;
	int sc = score(s->typed, name, &d, &starts);
	if (sc < 0)
		return;
	for (unsigned i = 0; i < s->n; i++)
		if (!strcmp(s->best[i].name, name))
			return;
	unsigned pos = s->n;
	while (pos > 0 && s->best[pos - 1].score > sc)
		pos--;
	if (pos >= PB_SUGGEST_MAX)
		return;
	unsigned last = s->n < PB_SUGGEST_MAX ? s->n : PB_SUGGEST_MAX - 1;
	for (unsigned i = last; i > pos; i--)
		s->best[i] = s->best[i - 1];
	snprintf(s->best[pos].name, sizeof s->best[pos].name, "%s", name);
	s->best[pos].score = sc;
	s->best[pos].distance = d;
	s->best[pos].starts = starts;
	if (s->n < PB_SUGGEST_MAX)
		s->n++;
}

void pb_suggest_names(const struct pb_suggest *s, char *buf, size_t len)
{
	if (!len)
		return;
	buf[0] = '\0';
	/* A typo is one mistake: names farther than the nearest are other names that happen to
	 * share a long start (pb_wl_accuracy_jmp: jump, not ret), except those typed in part. */
	unsigned nearest = s->n ? s->best[0].distance : 0, shown[PB_SUGGEST_MAX], n = 0;
	for (unsigned i = 0; i < s->n; i++)
		if (s->best[i].starts || s->best[i].distance <= nearest)
			shown[n++] = i;
	for (unsigned k = 0; k < n; k++)
		pb_append(buf, len, "%s%s", k == 0 ? "" : k + 1 == n ? " or " : ", ",
			  s->best[shown[k]].name);
}

/* A list this short is read at a glance, so it is shown whole rather than sent elsewhere. */
#define PB_SUGGEST_SHORT_LIST 80

int pb_suggest_fail(struct pb_error *err, const struct pb_suggest *s, const char *prefix,
		    const char *what, const char *lister)
{
	char near[3 * PB_SUGGEST_NAME_LEN + 16];
	pb_suggest_names(s, near, sizeof near);
	bool short_list = !s->all_cut && strlen(s->all) <= PB_SUGGEST_SHORT_LIST;
	char tail[256];
	if (near[0])
		pb_format(tail, sizeof tail, "did you mean %s? %s lists them all", near, lister);
	else if (short_list && s->known)
		pb_format(tail, sizeof tail, "known: %s", s->all);
	else
		pb_format(tail, sizeof tail, "%s lists them all", lister);
	/* an option is shown as typed (--frobnicate), a name quoted */
	const char *quote = s->typed[0] == '-' ? "" : "'";
	return pb_fail(err, PB_EXIT_USAGE, 0, "%sunknown %s %s%s%s; %s", prefix ? prefix : "",
		       what, quote, s->typed, quote, tail);
}
