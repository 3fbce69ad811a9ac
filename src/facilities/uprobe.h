#ifndef PB_UPROBE_H
#define PB_UPROBE_H

#include "util/error.h"

#include <stddef.h>
#include <stdint.h>

/* Finds the file and file offset of a runtime code address of this process, from the ELF
 * program headers of the object that maps it. */
int pb_uprobe_locate(uint64_t addr, char *path, size_t path_len, uint64_t *offset,
		     struct pb_error *err);

#endif
