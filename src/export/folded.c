/* Folded stacks, the input of flamegraph.pl and of Firefox Profiler's and speedscope's
 * importers: one line per distinct stack of function names, "root;...;leaf COUNT", COUNT the
 * profile's primary values summed. A ';' inside a name becomes ':' (as perf's stackcollapse
 * does), so every ';' separates frames. Stacks whose names are equal (different addresses of
 * one function) are one line; lines are sorted. */
#include "export/export.h"
#include "util/kit.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

struct line {
	char *text;
	uint64_t count;
};

static int cmp_line(const void *a, const void *b)
{
	return strcmp(((const struct line *)a)->text, ((const struct line *)b)->text);
}

static char *stack_text(const struct pb_xset *s, const struct pb_xprofile *p, size_t st)
{
	const uint32_t *f = pb_xstack_frames(p, st);
	size_t depth = p->stacks[st].depth, len = 1;
	for (size_t i = 0; i < depth; i++)
		len += strlen(s->frames[f[i]].function) + 1;
	char *text = malloc(len), *at = text;
	if (!text)
		return NULL;
	for (size_t i = depth; i-- > 0;) {
		const char *name = s->frames[f[i]].function;
		for (; *name; name++)
			*at++ = *name == ';' ? ':' : *name;
		if (i)
			*at++ = ';';
	}
	*at = '\0';
	return text;
}

static int write_folded(const struct pb_xset *s, const size_t *profiles, size_t n, FILE *out,
			struct pb_error *err)
{
	int rc = 0;
	for (size_t k = 0; k < n && !rc; k++) {
		const struct pb_xprofile *p = &s->profiles[profiles[k]];
		struct line *lines = calloc(p->nstacks ? p->nstacks : 1, sizeof *lines);
		size_t nl = 0;
		if (!lines)
			return pb_fail(err, PB_EXIT_FAILURE, ENOMEM, "out of memory for folded stacks");
		for (size_t st = 0; st < p->nstacks && !rc; st++) {
			uint64_t count = 0;
			for (size_t t = 0; t < p->ntypes; t++)
				if (p->types[t].primary)
					count += pb_xstack_values(p, st)[t];
			if (!count || !p->stacks[st].depth)
				continue;
			if (!(lines[nl].text = stack_text(s, p, st)))
				rc = pb_fail(err, PB_EXIT_FAILURE, ENOMEM,
					     "out of memory for folded stacks");
			else
				lines[nl++].count = count;
		}
		if (!rc && nl)
			qsort(lines, nl, sizeof *lines, cmp_line);
		for (size_t i = 0; i < nl && !rc; i++) {
			uint64_t count = lines[i].count;
			while (i + 1 < nl && !strcmp(lines[i].text, lines[i + 1].text))
				count += lines[++i].count;
			if (fprintf(out, "%s %" PRIu64 "\n", lines[i].text, count) < 0)
				rc = pb_fail(err, PB_EXIT_OUTPUT, errno, "cannot write: %s",
					     strerror(errno));
		}
		for (size_t i = 0; i < nl; i++)
			free(lines[i].text);
		free(lines);
	}
	return rc;
}

const struct pb_export_format pb_export_folded = {
	.name = "folded",
	.summary = "folded stacks (flamegraph.pl, Firefox Profiler, speedscope import): "
		   "'root;...;leaf COUNT' per line, one file per profile",
	.all_in_one = false,
	.write = write_folded,
};
