/* Callgrind as an exact oracle: run a command under `valgrind --tool=callgrind
 * --dump-instr=yes` and read back how many times each instruction address executed (Ir), and
 * with the cache simulator its data reads and writes (Dr, Dw). Valgrind is a tool no one here
 * wrote; its counts of user-mode instructions are exact. */
#ifndef PB_CALLGRIND_H
#define PB_CALLGRIND_H

#include "util/error.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pb_cg_instr {
	uint64_t addr;
	uint64_t ir, dr, dw;         /* summed over every context the address appeared in */
};

struct pb_cg_profile {
	struct pb_cg_instr *instr;   /* sorted by address, one entry per address */
	size_t n;
	bool has_data;               /* Dr and Dw were collected (--cache-sim=yes) */
};

/* Parses a callgrind output file's text, keeping the costs of one object (the ob= path, e.g.
 * the executable; NULL keeps every object, whose addresses may then collide: callgrind gives
 * each object's instructions their link-time addresses). Handles absolute (hex or decimal),
 * relative (+N, -N) and repeated (*) positions, any number of position columns, compressed
 * and plain names, and skips the inclusive cost line after each calls= line. Malformed input
 * is PB_EXIT_BAD_FILE naming the line. */
int pb_callgrind_parse(const char *text, size_t len, const char *object,
		       struct pb_cg_profile *out, struct pb_error *err);
int pb_callgrind_parse_file(const char *path, const char *object, struct pb_cg_profile *out,
			    struct pb_error *err);
void pb_cg_profile_free(struct pb_cg_profile *p);
/* The entry of an address, or NULL if it never executed. */
const struct pb_cg_instr *pb_cg_find(const struct pb_cg_profile *p, uint64_t addr);
/* Sum of Ir over [begin, end). */
uint64_t pb_cg_ir_range(const struct pb_cg_profile *p, uint64_t begin, uint64_t end);

/* Finds valgrind on PATH; when absent says why in `why`. */
bool pb_callgrind_available(char *why, size_t len);
/* Runs argv under callgrind, writing its profile to out_path and the command's standard
 * output to stdout_path. cache_sim adds Dr/Dw. Fails if valgrind or the command fails. */
int pb_callgrind_run(char *const argv[], const char *out_path, const char *stdout_path,
		     bool cache_sim, struct pb_error *err);

#endif
