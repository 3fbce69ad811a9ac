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
/* The facilities' facts of m as results.json's machine document lists them ("facts"), each
 * {"key", "value", "title"}: key and value as the "machine" object holds them, title (left out
 * when the facility gives none) as report.html names the fact. A reader shows them from this
 * list without knowing any facility. */
json_t *pb_machine_facts_json(const struct pb_machine *m);

#endif
