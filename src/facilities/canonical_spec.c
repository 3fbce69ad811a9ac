/* Canonical spec text (canonical_spec.h). */
#include "facilities/canonical_spec.h"

#include <stdio.h>
#include <string.h>

void pb_spec_canonical(const struct pb_spec *spec, char *buf, size_t len)
{
	if (!strchr(spec->text, ':') && spec->event[0] && strcmp(spec->event, spec->facility->name))
		snprintf(buf, len, "%s:%s", spec->facility->name, spec->event);
	else
		snprintf(buf, len, "%s", spec->text);
}

void pb_spec_text_canonical(const char *text, char *buf, size_t len)
{
	struct pb_spec spec;
	struct pb_error ignored = {0};
	if (!strchr(text, ':') && !pb_spec_parse(text, &spec, &ignored))
		pb_spec_canonical(&spec, buf, len);
	else
		snprintf(buf, len, "%s", text);
}
