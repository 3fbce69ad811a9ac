/* The machine and its facilities as JSON: `pesbench probe --json` and results.json's
 * "machine" share this shape (schema "pesbench-probe/1"). */
#ifndef PB_PROBE_JSON_H
#define PB_PROBE_JSON_H

#include "facilities/facility.h"
#include "facilities/machine.h"

#include <jansson.h>

/* Every facility carries its availability after its self-test: "verdict" (works, inert,
 * inexact, refused, absent; untested on a saved tree) and "self_test" (null when nothing ran). */
json_t *pb_probe_json(const struct pb_machine *m);
json_t *pb_self_test_json(const struct pb_self_test *test);

#endif
