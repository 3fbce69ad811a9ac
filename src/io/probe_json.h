/* The machine and its facilities as JSON: `pesbench probe --json` and results.json's
 * "machine" share this shape (schema "pesbench-probe/1"). */
#ifndef PB_PROBE_JSON_H
#define PB_PROBE_JSON_H

#include "facilities/machine.h"

#include <jansson.h>

json_t *pb_probe_json(const struct pb_machine *m);

#endif
