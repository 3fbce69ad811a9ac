/* libpfm4 behind one small interface: event names → raw perf encodings, the PMU table that
 * describes a CPU, close-name suggestions, and corrections of known libpfm4 table bugs.
 * Encodes for PMUs that are not present (LIBPFM_ENCODE_INACTIVE) so fixtures and tests work
 * on a machine without a hardware PMU; names must then be qualified "pmu::EVENT". */
#ifndef PB_PFM_ENCODE_H
#define PB_PFM_ENCODE_H

#include "facilities/machine.h"
#include "util/error.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pb_pfm_encoding {
	uint32_t type;            /* PERF_TYPE_RAW for core PMUs, PERF_TYPE_HARDWARE for perf:: */
	uint64_t config, config1;
	bool precise_capable;     /* libpfm4's tables (or a correction) allow precise sampling */
	char canonical[192];      /* "pmu::EVENT:UMASK" as libpfm4 resolved it, no modifiers */
	char correction[384];     /* set when a known libpfm4 bug was corrected: what and source */
};

/* The libpfm4 PMU whose tables describe m's CPU ("skl", "spr", "amd64_fam19h_zen4"), or NULL.
 * A model newer than this libpfm4 falls back to its closest older table (EMR → spr). */
const char *pb_pfm_pmu_for_machine(const struct pb_machine *m);
/* The libpfm4 table named for an Arm CPU (MIDR implementer, part), whether or not this libpfm4
 * has it ("arm_ac57" for a Cortex-A57, "arm_n1"), or NULL. */
const char *pb_pfm_arm_table(unsigned implementer, unsigned part);
/* Whether this libpfm4 build has tables for pmu. */
bool pb_pfm_pmu_supported(const char *pmu);
/* Encodes event (libpfm4 syntax, modifiers allowed; no privilege modifiers applied by default).
 * Unknown names fail with PB_EXIT_USAGE and up to five close names in the message. */
int pb_pfm_encode(const char *event, struct pb_pfm_encoding *out, struct pb_error *err);
/* Up to max names close to event ("EVENT" or "EVENT:UMASK", pmu:: prefix allowed) from pmu's
 * tables (pmu NULL: every PMU present here), comma-separated into out; returns how many. */
unsigned pb_pfm_suggest(const char *pmu, const char *event, char *out, size_t len, unsigned max);
/* The first PMU, present here or not, whose libpfm4 tables have event with every umask of the
 * colon-separated list umasks ("" for none), or NULL: how the declared-event table is checked. */
const char *pb_pfm_event_known(const char *event, const char *umasks);
/* The library's API version as pfm_get_version() reports it ("4.0"), not the package. */
const char *pb_pfm_version(void);

#endif
