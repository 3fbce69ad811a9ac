/* The pesbench library: the perf.data reader, the perf_event record parser and ring buffer
 * reader, the AMD IBS and Arm SPE decoders, and facility probing that pesbench(1) is built on.
 * Build with `pkg-config --cflags --libs pesbench`; conventions in <pesbench/core.h>. */
#ifndef PESBENCH_PESBENCH_H
#define PESBENCH_PESBENCH_H

#include <pesbench/core.h>
#include <pesbench/facility.h>
#include <pesbench/ibs.h>
#include <pesbench/perfdata.h>
#include <pesbench/record.h>
#include <pesbench/ring.h>
#include <pesbench/spe.h>

#endif
