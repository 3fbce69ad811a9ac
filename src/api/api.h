/* What the public API's wrappers (include/pesbench/) share: the definitions of the opaque types
 * over the internal ones, and the error copy. Never installed. */
#ifndef PB_API_H
#define PB_API_H

#include "ring/record.h"
#include "util/error.h"

#include <pesbench/core.h>
#include <pesbench/record.h>

#include <stddef.h>
#include <stdint.h>

/* A parsed record: rec points at storage (pesbench_record__parse) or at a record the ring or the
 * perf.data walk owns, so records from either need no copy of the ~1.6 KiB struct. */
struct pesbench_record {
	const struct pb_record *rec;
	const uint8_t *bytes;     /* as stored; NULL from a ring */
	size_t len;
	struct pb_record storage;
};

/* The internal format is the first and only member: a pointer to one is a pointer to the other
 * (the perf.data reader hands out its events' formats this way). */
struct pesbench_record_format {
	struct pb_record_format fmt;
};

/* Copies err (if non-NULL) from the internal error; returns -1. */
int pb_api_error(struct pesbench_error *out, const struct pb_error *err);
/* An out-of-memory failure in out; returns -1. */
int pb_api_nomem(struct pesbench_error *out, const char *what);

#endif
