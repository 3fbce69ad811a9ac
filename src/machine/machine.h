/* What this machine offers for sampling: kernel, CPU, PMUs, privileges. Read from a sysfs/procfs
 * root so tests can point it at a constructed tree (tests/fixtures/sysfs-*). This layer reads
 * what the machine says and knows no facility; facilities/machine.h adds each facility's own
 * hardware facts (pb_machine_probe). */
#ifndef PB_MACHINE_MACHINE_H
#define PB_MACHINE_MACHINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PB_MAX_PMUS 48

struct pb_pmu {
	char name[64];
	int type;
	char caps[512];          /* "name=value" lines from <pmu>/caps/, newline-separated */
	char formats[1024];      /* "name=config:57" lines from <pmu>/format/ */
	char cpus[256];          /* <pmu>/cpus as the kernel wrote it ("16-23"), "" if none: the
				  * CPUs a core PMU of a hybrid machine counts on */
	bool core;               /* a core PMU: cpu, cpu_core, cpu_atom, cpu_lowpower, armv8_*,
				  * armv9_* (one per kind of core on big.LITTLE) */
	int precise_opened;      /* the highest precise_ip the kernel accepted when pesbench
				  * opened an event on this PMU; -1: not tried (a saved tree) */
};

/* A number a facility probed and keeps with the machine: every facility's own hardware facts
 * live here (pb_machine_note_set from its probe_machine hook), read only by that facility, and
 * shown to everyone else through its machine_facts hook. This layer never writes one. */
#define PB_MACHINE_NOTES 16
struct pb_machine_note {
	char key[32];
	long long value;
};

struct pb_machine {
	char root[256];          /* "" for the live system; else a fixture directory */
	char kernel_release[128];
	int kernel_major, kernel_minor;
	char cpu_vendor[32];     /* GenuineIntel, AuthenticAMD, ARM, ... */
	unsigned cpu_family, cpu_model, cpu_stepping;
	char cpu_model_name[160];
	bool hypervisor;
	unsigned ncpus;
	int paranoid;            /* /proc/sys/kernel/perf_event_paranoid, -99 if unreadable */
	long max_sample_rate;    /* /proc/sys/kernel/perf_event_max_sample_rate, -1 if unreadable */
	bool cap_perfmon, cap_sys_admin, is_root;
	struct pb_pmu pmus[PB_MAX_PMUS];
	unsigned npmus;
	unsigned pmus_skipped;   /* PMUs beyond PB_MAX_PMUS (uncore first) that were not kept */
	bool arm;                /* an Arm CPU: MIDR_EL1 or /proc/cpuinfo's "CPU implementer" */
	uint64_t midr;           /* cpu0's MIDR_EL1 from sysfs, 0 if unknown */
	unsigned arm_implementer;/* MIDR implementer (0x41 Arm Ltd); cpu_model is the part number */
	unsigned pmu_counters;   /* the core PMU's counters as its driver announced them, 0 unknown */
	const char *pmu_counters_source; /* "kernel log" or "" (unknown) */
	bool has_format_lost;    /* PERF_FORMAT_LOST accepted (kernel >= 6.0) */
	unsigned l1d_size;       /* bytes, 0 if unknown */
	unsigned l1d_line;
	const char *l1d_source;  /* where l1d_size came from: "sysfs", "cpuid", or "" (unknown) */
	/* RISC-V: the first hart's ISA string (/proc/cpuinfo "isa", "rv64imafdch_sscofpmf_..."),
	 * whether it names Sscofpmf (counter-overflow interrupts: without it the kernel's SBI PMU
	 * driver counts but cannot sample), and the SBI firmware counters the driver announced. */
	bool riscv;
	char riscv_isa[256];
	bool riscv_sscofpmf;
	unsigned riscv_fw_counters;
	struct pb_machine_note notes[PB_MACHINE_NOTES]; /* the facilities' own facts */
	unsigned nnotes;
};

/* Fills m with what the machine says, facility facts left unknown (pb_machine_probe, in
 * facilities/machine.h, adds them). root NULL or "" = the live system. Never fails: what it
 * cannot read stays unknown. */
void pb_machine_read(struct pb_machine *m, const char *root);
/* Sets the note key (replacing its value); false when the notes are full or key too long. */
bool pb_machine_note_set(struct pb_machine *m, const char *key, long long value);
/* The note key's value; false when there is none. */
bool pb_machine_note_get(const struct pb_machine *m, const char *key, long long *value);
/* The kernel log: the live one when this user may read it (root, CAP_SYSLOG or
 * dmesg_restrict=0; the boot lines may also have rotated out on a long-running machine), a
 * saved tree's <root>/pesbench-dmesg. NUL-terminated, to free(); NULL when there is none. */
char *pb_machine_kernel_log(const struct pb_machine *m);
/* A small file under the machine's root (rel starts with '/'; m NULL: this machine), trailing
 * newlines removed: where a facility finds what a saved tree kept for it. Its length, or -1. */
long pb_machine_read_file(const struct pb_machine *m, const char *rel, char *buf, size_t len);
/* A file under the machine's root as it is (m NULL: this machine; a /proc file that says it is
 * empty too), up to max bytes: malloc'd and NUL-terminated, its length in *len; NULL when it
 * cannot be read or is longer than max. */
char *pb_machine_read_whole(const struct pb_machine *m, const char *rel, size_t max, size_t *len);
const struct pb_pmu *pb_machine_pmu(const struct pb_machine *m, const char *name);
/* Value of a caps/ or format/ entry of a PMU, or NULL. */
const char *pb_pmu_caps(const struct pb_pmu *p, const char *name, char *buf, unsigned len);
const char *pb_pmu_format(const struct pb_pmu *p, const char *name, char *buf, unsigned len);
bool pb_machine_kernel_at_least(const struct pb_machine *m, int major, int minor);
/* True on x86 CPUs (GenuineIntel, AuthenticAMD, HygonGenuine), whatever the build arch. */
bool pb_machine_is_x86(const struct pb_machine *m);
/* True on Arm CPUs (any implementer), whatever the build arch. */
bool pb_machine_is_arm(const struct pb_machine *m);
/* True on RISC-V harts (/proc/cpuinfo has an "isa" line), whatever the build arch. */
bool pb_machine_is_riscv(const struct pb_machine *m);
/* Reads riscv-pmu-sbi's "16 firmware and 18 hardware counters" (exposed for tests). */
void pb_machine_parse_riscv_log(struct pb_machine *m, const char *log);
/* The PMU that carries the core counters: "cpu" (x86), "cpu_core" (hybrid Intel) or an
 * armv8_* / armv9_* PMU (armv8_pmuv3, armv8_pmuv3_0, armv8_cortex_a57...) on arm64; NULL if
 * none. Its perf type is dynamic on arm64: read from sysfs, never assumed. */
const struct pb_pmu *pb_machine_core_pmu(const struct pb_machine *m);
/* Every core PMU, in the order probe lists them (hybrid machines have several, each covering
 * its own CPUs); returns how many were written to out (at most max). */
unsigned pb_machine_core_pmus(const struct pb_machine *m, const struct pb_pmu **out,
			      unsigned max);
/* The CPUs of a PMU's cpus list ("0-15,20"): how many, and the i-th (i modulo the count);
 * -1 / 0 when the PMU has no list or it does not parse. */
unsigned pb_pmu_cpu_count(const struct pb_pmu *p);
int pb_pmu_cpu_at(const struct pb_pmu *p, unsigned i);
/* Parses a kernel CPU list ("0-3,8,10-11") into mask (bit n: CPU n, nbits bits); returns the
 * CPUs set, or -1 when the text is not a list of that shape or names a CPU >= nbits. */
int pb_cpulist_parse(const char *text, uint64_t *mask, unsigned nbits);
/* What the kernel log says about the PMU, parsed (exposed for tests):
 * "hw perfevents: enabled with armv8_pmuv3 PMU driver, 7 counters available" (arm64), and x86's
 * "... generic registers: 4" + "... fixed-purpose events: 3". Fields it does not find are left. */
void pb_machine_parse_kernel_log(struct pb_machine *m, const char *log);
/* May this user sample kernel code: CAP_PERFMON, CAP_SYS_ADMIN or paranoid <= 1. */
bool pb_machine_may_sample_kernel(const struct pb_machine *m);

/* A sysfs format string ("config:19", "config2:0-11", "config1:0-63") as a bit field. */
struct pb_format_field {
	unsigned word;           /* 0 config, 1 config1, 2 config2 */
	unsigned lo, hi;         /* inclusive bit range */
};
/* Parses one format string; -1 if it is not of that shape (split fields are refused). */
int pb_format_parse(const char *text, struct pb_format_field *out);
/* The largest value the field holds. */
uint64_t pb_format_max(const struct pb_format_field *f);
/* Writes value (masked to the field) into the attr word f names. */
struct perf_event_attr;
void pb_format_apply(struct perf_event_attr *attr, const struct pb_format_field *f,
		     uint64_t value);

#endif
