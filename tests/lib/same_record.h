/* Whether two parsed records are equal but for a sample's arrays (read values, registers),
 * which neither the full parser nor the fixed-layout fast path writes for a fixed layout: the
 * check that the fast path agrees with the full parser, shared by test_perfdata and
 * fuzz_record. Both records must have been zeroed before parsing (padding is compared). */
#ifndef PB_SAME_RECORD_H
#define PB_SAME_RECORD_H

#include "ring/record.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline bool pb_same_record(const struct pb_record *a, const struct pb_record *b)
{
#define AT(f) offsetof(struct pb_record, u.sample.f)
#define END(f) (AT(f) + sizeof a->u.sample.f)
	const uint8_t *x = (const uint8_t *)a, *y = (const uint8_t *)b;
	return !memcmp(x, y, AT(read.values)) &&
	       !memcmp(x + END(read.values), y + END(read.values),
		       AT(regs_user.regs) - END(read.values)) &&
	       !memcmp(x + END(regs_user.regs), y + END(regs_user.regs),
		       AT(regs_intr.regs) - END(regs_user.regs)) &&
	       !memcmp(x + END(regs_intr.regs), y + END(regs_intr.regs),
		       sizeof *a - END(regs_intr.regs));
#undef AT
#undef END
}

#endif
