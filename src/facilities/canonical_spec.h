/* The canonical text of a spec, by which results of different versions line up: one written
 * without its event ("timer") reads as the facility's default event ("timer:cpu-clock"). */
#ifndef PB_CANONICAL_SPEC_H
#define PB_CANONICAL_SPEC_H

#include "facilities/facility.h"

#include <stddef.h>

/* Of a parsed spec. */
void pb_spec_canonical(const struct pb_spec *spec, char *buf, size_t len);
/* Of a spec text, parsed by this build's registry; the text itself when it does not parse. */
void pb_spec_text_canonical(const char *text, char *buf, size_t len);

#endif
