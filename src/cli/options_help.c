/* A command's help, its man page section and its option list, all from its option table. */
#include "cli/options.h"

#include "util/text.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HELP_WIDTH 80

/* "--name ARG", "-h, --help", "-f, -e, --facility SPEC" */
static void option_label(const struct pb_cmd_spec *spec, const struct pb_opt *o, char *buf,
			 size_t len)
{
	char letters[PB_OPT_MAX_SHORT + 1];
	size_t n = pb_opt_short_letters(spec, o, letters);
	buf[0] = '\0';
	for (size_t i = 0; i < n; i++)
		pb_append(buf, len, "-%c, ", letters[i]);
	pb_append(buf, len, "--%s%s%s", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
}

/* Words of text from column `col`, wrapped to HELP_WIDTH with continuation lines at `indent`. */
void pb_put_wrapped(FILE *out, const char *text, unsigned col, unsigned indent)
{
	const char *p = text;
	while (*p) {
		while (*p == ' ')
			p++;
		size_t w = strcspn(p, " ");
		if (!w)
			break;
		if (col > indent && col + 1 + w > HELP_WIDTH) {
			fprintf(out, "\n%*s", (int)indent, "");
			col = indent;
		} else if (col > indent) {
			fputc(' ', out);
			col++;
		}
		fprintf(out, "%.*s", (int)w, p);
		col += (unsigned)w;
		p += w;
	}
	fputc('\n', out);
}

/* The synopsis, as one string of words separated by single spaces except within an element. */
static void synopsis_lines(const struct pb_cmd_spec *spec, FILE *out, const char *prefix)
{
	char head[64];
	snprintf(head, sizeof head, "%spesbench %s", prefix, spec->name);
	unsigned indent = (unsigned)strlen(head) + 1, col = (unsigned)strlen(head);
	fputs(head, out);
	char element[160];
	const char *parts[3] = {spec->operands, NULL, spec->trailing};
	for (int stage = 0; stage < 3; stage++) {
		const struct pb_opt *o = stage == 1 ? spec->options : NULL;
		for (;;) {
			if (stage == 1) {
				if (!o || !o->name)
					break;
				if (o->hidden) {
					o++;
					continue;
				}
				char label[96];
				snprintf(label, sizeof label, "--%s%s%s", o->name, o->arg ? " " : "",
					 o->arg ? o->arg : "");
				snprintf(element, sizeof element, "%s%s%s%s", o->required ? "" : "[",
					 label, o->required ? "" : "]", o->repeatable ? "..." : "");
				o++;
			} else {
				if (!parts[stage])
					break;
				snprintf(element, sizeof element, "%s", parts[stage]);
				parts[stage] = NULL;
			}
			size_t w = strlen(element);
			if (col + 1 + w > HELP_WIDTH && col > indent) {
				fprintf(out, "\n%*s", (int)indent, "");
				col = indent;
			} else {
				fputc(' ', out);
				col++;
			}
			fputs(element, out);
			col += (unsigned)w;
		}
	}
	fputc('\n', out);
}

void pb_options_help(const struct pb_cmd_spec *spec, FILE *out)
{
	synopsis_lines(spec, out, "usage: ");
	if (spec->description)
		fprintf(out, "\n%s", spec->description);
	fputc('\n', out);
	if (spec->extra) {
		spec->extra(out);
		fputc('\n', out);
	}
	fprintf(out, "options:\n");
	unsigned column = 0;
	char label[128];
	for (const struct pb_opt *o = spec->options; o && o->name; o++) {
		if (o->hidden)
			continue;
		option_label(spec, o, label, sizeof label);
		if (strlen(label) > column)
			column = (unsigned)strlen(label);
	}
	if (column > 22)
		column = 22;
	column += 4;
	for (const struct pb_opt *o = spec->options;; o++) {
		if (!o || !o->name)
			o = &pb_help_option;
		if (o->hidden)
			continue;
		option_label(spec, o, label, sizeof label);
		fprintf(out, "  %s", label);
		unsigned col = 2 + (unsigned)strlen(label);
		if (col + 2 > column) {
			fprintf(out, "\n%*s", (int)column, "");
		} else {
			fprintf(out, "%*s", (int)(column - col), "");
		}
		pb_put_wrapped(out, o->help ? o->help : "", column, column);
		if (o == &pb_help_option)
			break;
	}
	if (spec->epilogue)
		fprintf(out, "\n%s", spec->epilogue);
}

/* Plain text as troff: backslashes and hyphens literal, no line read as a request. */
static void roff_escaped(FILE *out, const char *text, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		char c = text[i];
		if (i == 0 && (c == '.' || c == '\''))
			fputs("\\&", out);
		if (c == '\\')
			fputs("\\e", out);
		else if (c == '-')
			fputs("\\-", out);
		else
			fputc(c, out);
	}
}

void pb_roff_text(FILE *out, const char *text)
{
	bool verbatim = false;
	for (const char *p = text; p && *p;) {
		size_t len = strcspn(p, "\n");
		bool indented = len && p[0] == ' ';
		if (indented != verbatim) {
			fputs(indented ? ".nf\n" : ".fi\n", out);
			verbatim = indented;
		}
		if (!len) {
			fputs(verbatim ? "\n" : ".PP\n", out);
		} else {
			roff_escaped(out, p, len);
			fputc('\n', out);
		}
		p += len;
		if (*p)
			p++;
	}
	if (verbatim)
		fputs(".fi\n", out);
}

static void roff_option(FILE *out, const struct pb_cmd_spec *spec, const struct pb_opt *o)
{
	fputs(".TP\n", out);
	char letters[PB_OPT_MAX_SHORT + 1];
	size_t n = pb_opt_short_letters(spec, o, letters);
	for (size_t i = 0; i < n; i++)
		fprintf(out, "\\fB\\-%c\\fR, ", letters[i]);
	fputs("\\fB\\-\\-", out);
	roff_escaped(out, o->name, strlen(o->name));
	fputs("\\fR", out);
	if (o->arg) {
		fputs(" \\fI", out);
		roff_escaped(out, o->arg, strlen(o->arg));
		fputs("\\fR", out);
	}
	fputc('\n', out);
	roff_escaped(out, o->help ? o->help : "", o->help ? strlen(o->help) : 0);
	fputc('\n', out);
}

void pb_options_man(const struct pb_cmd_spec *spec, FILE *out)
{
	fprintf(out, ".SS \"pesbench %s\"\n", spec->name);
	pb_roff_text(out, spec->summary);
	fputs(".PP\n.nf\n", out);
	char *synopsis = NULL;
	size_t size = 0;
	FILE *mem = open_memstream(&synopsis, &size);
	if (mem) {
		synopsis_lines(spec, mem, "usage: ");
		if (spec->extra) {
			fputc('\n', mem);
			spec->extra(mem);
		}
		fclose(mem);
		roff_escaped(out, synopsis, size);
		free(synopsis);
	}
	fputs(".fi\n", out);
	if (spec->description) {
		fputs(".PP\n", out);
		pb_roff_text(out, spec->description);
	}
	for (const struct pb_opt *o = spec->options; o && o->name; o++)
		if (!o->hidden)
			roff_option(out, spec, o);
	roff_option(out, spec, &pb_help_option);
	if (spec->epilogue) {
		fputs(".PP\n", out);
		pb_roff_text(out, spec->epilogue);
	}
}

void pb_options_list(const struct pb_cmd_spec *spec, FILE *out)
{
	for (const struct pb_opt *o = spec->options;; o++) {
		if (!o || !o->name)
			o = &pb_help_option;
		char example[32];
		const char *shown = o->example;
		if (!shown && (o->kind == PB_OPT_U64 || o->kind == PB_OPT_THREADS ||
			       o->kind == PB_OPT_U64_LIST || o->kind == PB_OPT_PERIOD ||
			       o->kind == PB_OPT_PERIOD_LIST)) {
			snprintf(example, sizeof example, "%llu",
				 (unsigned long long)(o->kind == PB_OPT_THREADS ? 1 : o->min));
			shown = example;
		}
		if (!shown && o->kind == PB_OPT_STRING)
			shown = "x";
		fprintf(out, "%s\t--%s\t%s\t%s\t%s%s%s\t%s\n", spec->name, o->name,
			o->arg ? o->arg : "-", o->kind == PB_OPT_FLAG ? "-" : shown ? shown : "?",
			o->hidden ? "hidden" : "", o->hidden && o->required ? "," : "",
			o->required ? "required" : !o->hidden ? "-" : "", o->help ? o->help : "");
		if (o == &pb_help_option)
			break;
	}
}
