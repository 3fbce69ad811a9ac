/* Decoding AMD IBS samples: the PERF_SAMPLE_RAW payload of an ibs_op or ibs_fetch event (a u32
 * caps word, then the IBS registers) into named register fields, with the CPU's errata and
 * layout changes applied (arch/x86/events/amd/ibs.c writes the payload). */
#ifndef PESBENCH_IBS_H
#define PESBENCH_IBS_H

#include <pesbench/core.h>
#include <pesbench/perfdata.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

enum pesbench_ibs_kind {
	PESBENCH_IBS_FETCH,
	PESBENCH_IBS_OP,
};

/* The CPU that took the samples: family and model select the errata, the ibs_op PMU's caps
 * (sysfs /sys/bus/event_source/devices/ibs_op/caps, or the perf.data PMU caps) the layouts. */
enum pesbench_ibs_cpu_flag {
	PESBENCH_IBS_CPU_ZEN4_EXT = 1u << 0,    /* caps/zen4_ibs_extensions */
	PESBENCH_IBS_CPU_LDLAT = 1u << 1,       /* caps/ldlat */
	PESBENCH_IBS_CPU_DTLB_PGSIZE = 1u << 2, /* caps/dtlb_pgsize */
};
struct pesbench_ibs_cpu {
	unsigned family, model;
	unsigned flags;             /* enum pesbench_ibs_cpu_flag */
};

/* Whether event index of pd is an IBS event (its PMU is ibs_op or ibs_fetch), as perf decides;
 * then *kind and *cpu (from the file's CPUID and PMU caps) are filled. */
bool pesbench_perfdata__ibs_event(const struct pesbench_perfdata *pd, size_t index,
				  enum pesbench_ibs_kind *kind, struct pesbench_ibs_cpu *cpu);

struct pesbench_ibs_sample;

struct pesbench_ibs_sample *pesbench_ibs_sample__new(void);
void pesbench_ibs_sample__delete(struct pesbench_ibs_sample *s);

/* Decodes raw (len bytes, from pesbench_record__raw: starting at the caps word, any alignment)
 * into s. -1 with err (PESBENCH_E_BAD_FILE) when len is too short or disagrees with the caps
 * word; nothing outside [raw, raw + len) is read. */
int pesbench_ibs_sample__decode(struct pesbench_ibs_sample *s, const void *raw, size_t len,
				enum pesbench_ibs_kind kind, const struct pesbench_ibs_cpu *cpu,
				struct pesbench_error *err);

/* En and Val both set: perf skips samples that are not valid. */
bool pesbench_ibs_sample__valid(const struct pesbench_ibs_sample *s);
/* The registers of the payload (index 0 is IbsFetchCtl or IbsOpCtl). */
unsigned pesbench_ibs_sample__nr_regs(const struct pesbench_ibs_sample *s);
uint64_t pesbench_ibs_sample__reg(const struct pesbench_ibs_sample *s, unsigned index);

enum pesbench_ibs_field {
	PESBENCH_IBS_IP,            /* IbsFetchLinAd; IbsOpRip unless RipInvalid */
	PESBENCH_IBS_PERIOD,        /* the period the sample was taken at */
	PESBENCH_IBS_FETCH_LAT,     /* fetch: cycles from request to completion */
	PESBENCH_IBS_DATA_ADDR,     /* op: IbsDcLinAd when valid */
	PESBENCH_IBS_PHYS_ADDR,     /* IbsFetchPhysAd / IbsDcPhysAd when valid */
	PESBENCH_IBS_DC_MISS_LAT,   /* op: load latency of an L1 data cache miss */
	PESBENCH_IBS_DATA_SRC,      /* op: OpData2 DataSrc of a load, when trusted */
	PESBENCH_IBS_BR_TARGET,     /* op: IbsBrTarget when the payload carries it */
	PESBENCH_IBS_OP_FLAGS,      /* op: enum pesbench_ibs_op_flag, what the op was */
};
/* Stores the field in *value and returns 0, or returns -1 when the sample does not have it. */
int pesbench_ibs_sample__field(const struct pesbench_ibs_sample *s, enum pesbench_ibs_field field,
			       uint64_t *value);

/* What an op was (PESBENCH_IBS_OP_FLAGS). */
enum pesbench_ibs_op_flag {
	PESBENCH_IBS_OP_LOAD = 1u << 0,
	PESBENCH_IBS_OP_STORE = 1u << 1,
	PESBENCH_IBS_OP_BRANCH = 1u << 2,        /* a retired branch */
	PESBENCH_IBS_OP_TAKEN = 1u << 3,
	PESBENCH_IBS_OP_MISPREDICTED = 1u << 4,
	PESBENCH_IBS_OP_RETURN = 1u << 5,
	PESBENCH_IBS_OP_LOCKED = 1u << 6,
	PESBENCH_IBS_OP_L1_MISS = 1u << 7,       /* data cache */
	PESBENCH_IBS_OP_L2_MISS = 1u << 8,
	PESBENCH_IBS_OP_DTLB_L1_MISS = 1u << 9,
	PESBENCH_IBS_OP_DTLB_L2_MISS = 1u << 10,
	PESBENCH_IBS_OP_UNCACHEABLE = 1u << 11,
	PESBENCH_IBS_OP_MISALIGNED = 1u << 12,
	PESBENCH_IBS_OP_SW_PREFETCH = 1u << 13,
	PESBENCH_IBS_OP_RIP_INVALID = 1u << 14,
	PESBENCH_IBS_OP_FUSED = 1u << 15,
	PESBENCH_IBS_OP_MICROCODE = 1u << 16,
};
/* "load", "l1-miss", ...: the name of one flag, NULL when flag is not one known flag. */
const char *pesbench_ibs_op_flag__name(unsigned flag);

/* Prints the sample as `perf report -D` (perf 6.1) prints IBS samples; nothing for an invalid
 * sample. Returns the number of lines printed. */
int pesbench_ibs_sample__fprintf(const struct pesbench_ibs_sample *s, FILE *out);

#ifdef __cplusplus
}
#endif

#endif
