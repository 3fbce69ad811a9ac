/* Machine discovery against constructed sysfs/procfs trees (tests/fixtures/sysfs-*) and the
 * live system. */
#include "check.h"
#include "fixture.h"
#include "facilities/facility.h"
#include "facilities/machine.h"
#include "machine/load.h"
#include "util/kit.h"

#include <linux/perf_event.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

static void put(const char *root, const char *rel, const char *text)
{
	char path[1024];
	snprintf(path, sizeof path, "%s/%s", root, rel);
	for (char *p = path + strlen(root) + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			mkdir(path, 0755);
			*p = '/';
		}
	FILE *f = fopen(path, "w");
	if (!f)
		pb_skip("cannot write %s", path);
	fputs(text, f);
	fclose(f);
}

/* A facility's fact of m as `probe` shows it (pb_machine_facts): its number; -1 when its
 * facility does not know it, -2 when no facility gives it. */
static long long fact(const struct pb_machine *m, const char *key)
{
	struct pb_machine_fact facts[PB_MAX_MACHINE_FACTS];
	unsigned n = pb_machine_facts(m, facts, PB_MAX_MACHINE_FACTS);
	for (unsigned i = 0; i < n; i++)
		if (!strcmp(facts[i].key, key))
			return facts[i].kind == PB_FACT_INT ? facts[i].number : -1;
	return -2;
}

static void test_vm(void)
{
	struct pb_machine m;
	pb_test_fixture(&m, "sysfs-vm");
	CHECK_STR_CONTAINS(m.cpu_vendor, "GenuineIntel");
	CHECK_EQ_U64(m.cpu_family, 6);
	CHECK_EQ_U64(m.cpu_model, 207);
	CHECK_EQ_U64(m.cpu_stepping, 2);
	CHECK_STR_CONTAINS(m.cpu_model_name, "Xeon");
	CHECK(m.hypervisor);
	CHECK_EQ_U64(m.ncpus, 2);
	CHECK_EQ_U64(m.kernel_major, 6);
	CHECK_EQ_U64(m.kernel_minor, 18);
	CHECK_STR_CONTAINS(m.kernel_release, "6.18.44");
	CHECK_EQ_U64(m.paranoid, 2);
	CHECK_EQ_U64(m.max_sample_rate, 100000);
	CHECK(m.cap_perfmon && m.cap_sys_admin && m.is_root);
	CHECK_EQ_U64(m.npmus, 6);
	CHECK(pb_machine_pmu(&m, "cpu") == NULL);
	CHECK(pb_machine_pmu(&m, "ibs_op") == NULL);
	const struct pb_pmu *bp = pb_machine_pmu(&m, "breakpoint");
	CHECK(bp && bp->type == PERF_TYPE_BREAKPOINT);
	const struct pb_pmu *up = pb_machine_pmu(&m, "uprobe");
	char buf[64];
	CHECK(up && up->type == 8);
	CHECK(up && !strcmp(pb_pmu_format(up, "retprobe", buf, sizeof buf), "config:0"));
	CHECK(up && !strcmp(pb_pmu_format(up, "ref_ctr_offset", buf, sizeof buf), "config:32-63"));
	CHECK(up && pb_pmu_format(up, "retprobe_", buf, sizeof buf) == NULL);
	CHECK(up && pb_pmu_caps(up, "max_precise", buf, sizeof buf) == NULL);
	CHECK_EQ_U64(fact(&m, "bp_slots"), 4);
	CHECK(m.has_format_lost);
	CHECK_EQ_U64(fact(&m, "max_precise"), (uint64_t)-1);
	CHECK_EQ_U64(fact(&m, "ibs_caps"), (uint64_t)-1);
	CHECK_EQ_U64(m.l1d_size, 48 * 1024);
	CHECK_EQ_U64(m.l1d_line, 64);
	CHECK(!strcmp(m.l1d_source, "sysfs"));
	CHECK(pb_machine_is_x86(&m));
	CHECK(pb_machine_may_sample_kernel(&m));
}

static void test_zen4(void)
{
	struct pb_machine m;
	pb_test_fixture(&m, "sysfs-zen4");
	CHECK_STR_CONTAINS(m.cpu_vendor, "AuthenticAMD");
	CHECK_EQ_U64(m.cpu_family, 0x19);
	CHECK_EQ_U64(m.cpu_model, 0x11);
	CHECK(!m.hypervisor);
	CHECK_EQ_U64(m.ncpus, 4);
	CHECK_EQ_U64(m.paranoid, 1);
	CHECK(!m.cap_perfmon && !m.cap_sys_admin && !m.is_root);
	CHECK(pb_machine_may_sample_kernel(&m)); /* paranoid 1 */
	const struct pb_pmu *op = pb_machine_pmu(&m, "ibs_op");
	CHECK(op && op->type == 11);
	char buf[64];
	CHECK(op && !strcmp(pb_pmu_caps(op, "zen4_ibs_extensions", buf, sizeof buf), "1"));
	/* Rebuilt from sysfs: AVAIL|FETCHSAM|OPSAM, OPCNT (format/cnt_ctl), ZEN4 (caps). */
	CHECK_EQ_U64(fact(&m, "ibs_caps"), 0x7 | 0x10 | 0x800);
	CHECK_EQ_U64(m.l1d_size, 32 * 1024);
	CHECK(pb_machine_kernel_at_least(&m, 6, 2));
	CHECK(!pb_machine_kernel_at_least(&m, 6, 14));
	CHECK(pb_machine_kernel_at_least(&m, 5, 19));
	CHECK(!pb_machine_kernel_at_least(&m, 7, 0));
	CHECK_EQ_U64(fact(&m, "max_precise"), (uint64_t)-1); /* AMD cpu PMU has no max_precise cap */
}

static void test_zen5_caps_file_wins(void)
{
	struct pb_machine m;
	pb_test_fixture(&m, "sysfs-zen5");
	CHECK_EQ_U64(fact(&m, "ibs_caps"), 0x81bff);
	CHECK_EQ_U64(m.cpu_family, 0x1a);
	CHECK(!pb_machine_may_sample_kernel(&m)); /* paranoid 2, no caps */
}

static void test_skl(void)
{
	struct pb_machine m;
	pb_test_fixture(&m, "sysfs-skl");
	CHECK_EQ_U64(m.cpu_model, 94);
	CHECK_EQ_U64(fact(&m, "max_precise"), 3);
	CHECK_EQ_U64(m.ncpus, 8);
	CHECK(!m.has_format_lost); /* 5.15 */
	CHECK_EQ_U64(m.max_sample_rate, 50000);
	/* Core PMUs before uncore ones. */
	CHECK(!strncmp(m.pmus[m.npmus - 1].name, "uncore_", 7));
	CHECK(!strncmp(m.pmus[m.npmus - 2].name, "uncore_", 7));
	CHECK(strncmp(m.pmus[m.npmus - 3].name, "uncore_", 7));
	const struct pb_pmu *cpu = pb_machine_pmu(&m, "cpu");
	char buf[64];
	CHECK(cpu && !strcmp(pb_pmu_format(cpu, "ldlat", buf, sizeof buf), "config1:0-15"));
	CHECK(cpu && !strcmp(pb_pmu_caps(cpu, "pmu_name", buf, sizeof buf), "skylake"));
	/* A short buffer truncates, never overflows. */
	char small[4];
	CHECK(cpu && !strcmp(pb_pmu_caps(cpu, "pmu_name", small, sizeof small), "sky"));
}

static void test_neoverse(void)
{
	struct pb_machine m;
	pb_test_fixture(&m, "sysfs-neoverse");
	CHECK_STR_CONTAINS(m.cpu_vendor, "ARM");
	CHECK_EQ_U64(m.cpu_model, 0xd0c);
	CHECK_EQ_U64(m.cpu_family, 8);
	CHECK_EQ_U64(m.cpu_stepping, 0x31);
	CHECK_STR_CONTAINS(m.cpu_model_name, "Neoverse N1");
	CHECK_EQ_U64(m.ncpus, 4);
	CHECK(!pb_machine_is_x86(&m));
	CHECK_EQ_U64(fact(&m, "bp_slots"), 0); /* arm64 watchpoint count is not a fixed 4 */
	const struct pb_pmu *spe = pb_machine_pmu(&m, "arm_spe_0");
	char buf[64];
	CHECK(spe && !strcmp(pb_pmu_caps(spe, "min_interval", buf, sizeof buf), "1024"));
	CHECK(spe && !strcmp(pb_pmu_format(spe, "min_latency", buf, sizeof buf), "config2:0-11"));
	CHECK_EQ_U64(m.l1d_size, 64 * 1024);
	CHECK_EQ_U64(fact(&m, "ibs_caps"), (uint64_t)-1);
}

/* The arm64 guest of make check-arm64 (qemu-system-aarch64 -cpu cortex-a57) as it shows
 * itself: MIDR 0x411fd070, armv8_pmuv3 at dynamic type 8, counters and debug registers only in
 * the kernel log. */
static void test_qemu_a57(void)
{
	struct pb_machine m;
	pb_test_fixture(&m, "sysfs-qemu-a57");
	CHECK(pb_machine_is_arm(&m));
	CHECK(!pb_machine_is_x86(&m));
	CHECK_EQ_U64(m.midr, 0x411fd070);
	CHECK_EQ_U64(m.arm_implementer, 0x41);
	CHECK(!strcmp(m.cpu_vendor, "ARM"));
	CHECK_EQ_U64(m.cpu_model, 0xd07);
	CHECK_EQ_U64(m.cpu_family, 8);
	CHECK_EQ_U64(m.cpu_stepping, 0x10); /* r1p0 */
	CHECK(!strcmp(m.cpu_model_name, "Cortex-A57"));
	CHECK_EQ_U64(m.ncpus, 1);
	const struct pb_pmu *core = pb_machine_core_pmu(&m);
	CHECK(core && !strcmp(core->name, "armv8_pmuv3"));
	CHECK(core && core->type == 8);
	char buf[64];
	CHECK(core && !strcmp(pb_pmu_format(core, "event", buf, sizeof buf), "config:0-15"));
	CHECK_EQ_U64(m.pmu_counters, 7);
	CHECK(m.pmu_counters_source && !strcmp(m.pmu_counters_source, "kernel log"));
	CHECK_EQ_U64(fact(&m, "bp_slots"), 4);      /* watchpoints */
	CHECK_EQ_U64(fact(&m, "bp_exec_slots"), 6); /* breakpoints */
	CHECK_EQ_U64(m.paranoid, (uint64_t)-1);
	CHECK(pb_machine_pmu(&m, "arm_spe_0") == NULL);
	CHECK_EQ_U64(fact(&m, "ibs_caps"), (uint64_t)-1);
	CHECK_EQ_U64(fact(&m, "max_precise"), (uint64_t)-1);
}

/* MIDR_EL1 alone (no /proc/cpuinfo) identifies an Arm CPU; an implementer without a name
 * keeps its number, a part without a name is spelled out. */
static void test_midr_only(void)
{
	char root[] = "/tmp/pesbench-midr-XXXXXX";
	if (!mkdtemp(root))
		pb_skip("cannot create a temporary directory");
	put(root, "sys/devices/system/cpu/cpu0/regs/identification/midr_el1", "0x00000000c00fac31\n");
	put(root, "sys/bus/event_source/devices/armv8_pmuv3_0/type", "10\n");
	put(root, "sys/bus/event_source/devices/breakpoint/type", "5\n");
	struct pb_machine m;
	pb_machine_probe(&m, root);
	CHECK(pb_machine_is_arm(&m));
	CHECK(!strcmp(m.cpu_vendor, "Ampere"));
	CHECK_EQ_U64(m.arm_implementer, 0xc0);
	CHECK_EQ_U64(m.cpu_model, 0xac3);
	CHECK_EQ_U64(m.cpu_stepping, 0x01);
	CHECK_EQ_U64(m.cpu_family, 8);
	CHECK_STR_CONTAINS(m.cpu_model_name, "part 0xac3 r0p1");
	const struct pb_pmu *core = pb_machine_core_pmu(&m);
	CHECK(core && core->type == 10);
	/* no kernel log: unknown, never a guessed 4 */
	CHECK_EQ_U64(m.pmu_counters, 0);
	CHECK_EQ_U64(fact(&m, "bp_slots"), 0);
	/* the breakpoint facility reads its counts from the log (the last line that gives them) */
	put(root, "pesbench-dmesg", "[ 0.3] hw-breakpoint: found 2 breakpoint and 2 watchpoint\n"
				    "[ 0.4] hw-breakpoint: found 6 breakpoint and 4 watchpoint "
				    "registers.\n");
	pb_machine_probe(&m, root);
	CHECK_EQ_U64(fact(&m, "bp_exec_slots"), 6);
	CHECK_EQ_U64(fact(&m, "bp_slots"), 4);
	CHECK_EQ_U64(fact(&m, "no_such_fact"), (uint64_t)-2);
	put(root, "sys/devices/system/cpu/cpu0/regs/identification/midr_el1", "0x00000000dead\n");
	pb_machine_probe(&m, root);
	CHECK_STR_CONTAINS(m.cpu_vendor, "arm64-0x00");
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf %s", root);
	CHECK(system(cmd) == 0);
}

/* A RISC-V hart: identified by its ISA string; Sscofpmf decides whether hw can sample. */
static void test_riscv(void)
{
	char root[] = "/tmp/pesbench-riscv-XXXXXX";
	if (!mkdtemp(root))
		pb_skip("cannot create a temporary directory");
	put(root, "proc/cpuinfo", "processor\t: 0\nhart\t\t: 0\nisa\t\t: "
				  "rv64imafdch_sscofpmf_sstc_zihintpause\nmmu\t\t: sv57\n\n");
	put(root, "sys/bus/event_source/devices/cpu/type", "4\n");
	put(root, "pesbench-dmesg", "[    0.2] riscv-pmu-sbi: SBI PMU extension is available\n"
				    "[    0.2] riscv-pmu-sbi: 16 firmware and 18 hardware counters\n");
	struct pb_machine m;
	pb_machine_probe(&m, root);
	CHECK(pb_machine_is_riscv(&m) && !pb_machine_is_arm(&m) && !pb_machine_is_x86(&m));
	CHECK(!strcmp(m.riscv_isa, "rv64imafdch_sscofpmf_sstc_zihintpause"));
	CHECK(m.riscv_sscofpmf);
	CHECK_EQ_U64(m.pmu_counters, 18);
	CHECK_EQ_U64(m.riscv_fw_counters, 16);
	CHECK(!strcmp(pb_machine_core_pmu(&m)->name, "cpu"));
	struct pb_spec spec;
	struct pb_availability av;
	CHECK(pb_spec_parse("hw:cycles", &spec, NULL) == 0);
	pb_facility_hw.availability(&m, &spec, &av);
	CHECK(av.available);
	CHECK(pb_spec_parse("bp:w", &spec, NULL) == 0);
	pb_facility_bp.availability(&m, &spec, &av);
	CHECK(!av.available);
	CHECK_STR_CONTAINS(av.reason, "RISC-V");
	/* no Sscofpmf (a name that only starts like it does not count): counting only */
	put(root, "proc/cpuinfo", "processor\t: 0\nisa\t\t: rv64imafdc_sscofpmfx_zicsr\n");
	pb_machine_probe(&m, root);
	CHECK(pb_machine_is_riscv(&m) && !m.riscv_sscofpmf);
	CHECK(pb_spec_parse("hw:cycles", &spec, NULL) == 0);
	pb_facility_hw.availability(&m, &spec, &av);
	CHECK(!av.available);
	CHECK_STR_CONTAINS(av.reason, "Sscofpmf");
	CHECK_STR_CONTAINS(av.reason, "counting only");
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf %s", root);
	CHECK(system(cmd) == 0);
}

static void test_kernel_log(void)
{
	struct pb_machine m;
	memset(&m, 0, sizeof m);
	/* 6.5+ adds the counter mask; the first core PMU of a big.LITTLE system counts */
	pb_machine_parse_kernel_log(&m,
		"[ 0.1] hw perfevents: enabled with armv8_cortex_a53 PMU driver, 7 (0,8000003f) "
		"counters available\n"
		"[ 0.2] hw perfevents: enabled with armv8_cortex_a72 PMU driver, 7 (0,8000003f) "
		"counters available\n");
	CHECK_EQ_U64(m.pmu_counters, 7);
	memset(&m, 0, sizeof m);
	pb_machine_parse_kernel_log(&m,
		"Performance Events: PEBS fmt3+, Skylake events, 32-deep LBR, full-width counters, "
		"Intel PMU driver.\n"
		"... version:                4\n"
		"... generic registers:      4\n"
		"... fixed-purpose events:   3\n"
		"... generic registers:      8\n");
	CHECK_EQ_U64(m.pmu_counters, 7);
	memset(&m, 0, sizeof m);
	pb_machine_parse_kernel_log(&m, "hw perfevents: no interrupt-affinity property, guessing.\n"
					"hw perfevents: enabled with armv8_pmuv3 PMU driver, "
					"counters available\n");
	CHECK_EQ_U64(m.pmu_counters, 0);
	CHECK(m.pmu_counters_source == NULL);
}

static void test_missing_root(void)
{
	struct pb_machine m;
	pb_machine_probe(&m, "/nonexistent/pesbench-root");
	CHECK_EQ_U64(m.paranoid, (uint64_t)-99);
	CHECK_EQ_U64(m.max_sample_rate, (uint64_t)-1);
	CHECK_EQ_U64(m.npmus, 0);
	CHECK_EQ_U64(m.ncpus, 0);
	CHECK(m.kernel_release[0] == '\0');
	CHECK(!m.has_format_lost);
	CHECK(!pb_machine_may_sample_kernel(&m));
	/* a saved tree without a cache directory: unknown, never this machine's CPUID */
	CHECK_EQ_U64(m.l1d_size, 0);
	CHECK(!strcmp(m.l1d_source, ""));
}

/* The live machine's L1D from the best source: sysfs, else CPUID (judged against glibc, which
 * asks CPUID too), else unknown. */
static void test_live_l1d(void)
{
	const struct pb_machine *m = pb_machine_live();
	struct stat st;
	bool sysfs = stat("/sys/devices/system/cpu/cpu0/cache/index0", &st) == 0;
	printf("live L1D: %u bytes, %u-byte lines, from '%s'\n", m->l1d_size, m->l1d_line,
	       m->l1d_source);
	if (sysfs) {
		CHECK(!strcmp(m->l1d_source, "sysfs"));
		CHECK(m->l1d_size > 0);
	} else if (!strcmp(m->l1d_source, "cpuid")) {
		long glibc = sysconf(_SC_LEVEL1_DCACHE_SIZE);
		if (glibc > 0)
			CHECK_EQ_U64(m->l1d_size, (uint64_t)glibc);
		else
			pb_skip_checks(1, "glibc does not report the L1D size to compare with");
		CHECK(m->l1d_line >= 16 && m->l1d_line <= 256);
	} else {
		CHECK(!strcmp(m->l1d_source, ""));
		CHECK_EQ_U64(m->l1d_size, 0);
	}
}

static void test_many_pmus(void)
{
	char root[] = "/tmp/pb-machine-XXXXXX";
	if (!mkdtemp(root))
		pb_skip("mkdtemp failed");
	char rel[128], type[16];
	for (int i = 0; i < 60; i++) {
		snprintf(rel, sizeof rel, "sys/bus/event_source/devices/uncore_cha_%d/type", i);
		snprintf(type, sizeof type, "%d\n", 20 + i);
		put(root, rel, type);
	}
	put(root, "sys/bus/event_source/devices/cpu/type", "4\n");
	put(root, "sys/bus/event_source/devices/cpu/caps/max_precise", "2\n");
	put(root, "sys/bus/event_source/devices/broken/format/event", "config:0-7\n"); /* no type */
	put(root, "proc/sys/kernel/osrelease", "5.4.0\n");
	put(root, "pesbench-ibs-caps", "3ff\n");
	struct pb_machine m;
	pb_machine_probe(&m, root);
	CHECK_EQ_U64(m.npmus, PB_MAX_PMUS);
	CHECK_EQ_U64(m.pmus_skipped, 61 - PB_MAX_PMUS);
	CHECK(pb_machine_pmu(&m, "cpu") != NULL);
	CHECK(pb_machine_pmu(&m, "broken") == NULL);
	CHECK_EQ_U64(fact(&m, "max_precise"), 2);
	CHECK_EQ_U64(fact(&m, "ibs_caps"), 0x3ff);
	CHECK_EQ_U64(fact(&m, "bp_slots"), 0); /* no breakpoint PMU, no vendor */
	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
	CHECK(system(cmd) == 0);
}

static void test_formats(void)
{
	struct pb_format_field f;
	CHECK(pb_format_parse("config:19", &f) == 0 && f.word == 0 && f.lo == 19 && f.hi == 19);
	CHECK(pb_format_parse("config2:0-11", &f) == 0 && f.word == 2 && f.lo == 0 && f.hi == 11);
	CHECK_EQ_U64(pb_format_max(&f), 4095);
	CHECK(pb_format_parse("config1:0-63", &f) == 0 && f.word == 1);
	CHECK_EQ_U64(pb_format_max(&f), UINT64_MAX);
	CHECK(pb_format_parse("config:0-7,32-35", &f) == -1);
	CHECK(pb_format_parse("config:", &f) == -1);
	CHECK(pb_format_parse("config:9-3", &f) == -1);
	CHECK(pb_format_parse("config:64", &f) == -1);
	CHECK(pb_format_parse("config4:1", &f) == -1);
	CHECK(pb_format_parse("event", &f) == -1);
	CHECK(pb_format_parse(NULL, &f) == -1);

	struct perf_event_attr attr;
	memset(&attr, 0, sizeof attr);
	pb_format_parse("config:57", &f);
	pb_format_apply(&attr, &f, 1);
	CHECK_EQ_U64(attr.config, UINT64_C(1) << 57);
	pb_format_parse("config2:0-11", &f);
	pb_format_apply(&attr, &f, 0x1fff); /* masked to the field */
	CHECK_EQ_U64(attr.config2, 0xfff);
	pb_format_parse("config1:4-7", &f);
	attr.config1 = 0xffff;
	pb_format_apply(&attr, &f, 0x3);
	CHECK_EQ_U64(attr.config1, 0xff3f);
}

static void test_live(void)
{
	const struct pb_machine *a = pb_machine_live(), *b = pb_machine_live();
	CHECK(a == b);
	CHECK(a->root[0] == '\0');
	struct utsname u;
	CHECK(uname(&u) == 0);
	CHECK(!strcmp(a->kernel_release, u.release));
	CHECK_EQ_U64(a->ncpus, (uint64_t)sysconf(_SC_NPROCESSORS_ONLN));
	CHECK(a->is_root == (geteuid() == 0));
	CHECK(a->cpu_vendor[0] != '\0');
	/* Every PMU the kernel lists with a type was kept (this machine has few). */
	CHECK(pb_machine_pmu(a, "software") && pb_machine_pmu(a, "software")->type == PERF_TYPE_SOFTWARE);
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	int paranoid = -99;
	if (f) {
		if (fscanf(f, "%d", &paranoid) != 1)
			paranoid = -99;
		fclose(f);
	}
	CHECK_EQ_U64(a->paranoid, paranoid);
}

/* A facility's named notes: replaced in place, refused when full or when the key is too long. */
static void test_notes(void)
{
	static struct pb_machine m;
	long long v = 0;
	char key[40];
	CHECK(!pb_machine_note_get(&m, "a", &v));
	for (unsigned i = 0; i < PB_MACHINE_NOTES; i++) {
		snprintf(key, sizeof key, "note%u", i);
		CHECK(pb_machine_note_set(&m, key, i));
	}
	CHECK(pb_machine_note_set(&m, "note3", -5));
	CHECK_EQ_U64(m.nnotes, PB_MACHINE_NOTES);
	CHECK(pb_machine_note_get(&m, "note3", &v) && v == -5);
	CHECK(pb_machine_note_get(&m, "note7", &v) && v == 7);
	CHECK(!pb_machine_note_set(&m, "one-too-many", 1));
	memset(key, 'k', sizeof m.notes[0].key);
	key[sizeof m.notes[0].key] = '\0';
	m.nnotes = 0;
	CHECK(!pb_machine_note_set(&m, key, 1));
	CHECK_EQ_U64(m.nnotes, 0);
}

/* /proc/stat's first line: every kind of time a kernel gives, an old kernel's four, and text
 * that is not that line. */
static void test_cpu_ticks_parse(void)
{
	struct pb_cpu_ticks t;
	CHECK(pb_cpu_ticks_parse("cpu  2483826 25066 989024 4406142 14409 0 13368 505 0 0\n"
				 "cpu0 1248786 12273 515881 2177384 2922 0 1785 255 0 0\n", &t) == 0);
	CHECK(t.valid);
	CHECK_EQ_U64(t.user, 2483826);
	CHECK_EQ_U64(t.nice, 25066);
	CHECK_EQ_U64(t.system, 989024);
	CHECK_EQ_U64(t.idle, 4406142);
	CHECK_EQ_U64(t.iowait, 14409);
	CHECK_EQ_U64(t.softirq, 13368);
	CHECK_EQ_U64(t.steal, 505);
	CHECK(pb_cpu_ticks_parse("cpu  10 0 5 80", &t) == 0 && t.valid && t.idle == 80 &&
	      t.steal == 0);
	const char *bad[] = {"cpu  10 0 5", "cpu0 10 0 5 80 0 0 0 0", "intr 12 0 0 0", "",
			     "cpu  99999999999999999999999 0 5 80", "cpu  -1 0 5 80", " cpu 1 2 3 4"};
	for (size_t i = 0; i < PB_ARRAY_SIZE(bad); i++)
		CHECK_MSG(pb_cpu_ticks_parse(bad[i], &t) == -1 && !t.valid, "accepted '%s'",
			  bad[i]);
	CHECK(pb_cpu_ticks_parse(NULL, &t) == -1 && !t.valid);
}

/* Other work's CPUs and the steal between two readings, each with the interval of its tick
 * count: figures worked out by hand from the rule in load.h. */
static void test_machine_load(void)
{
	struct pb_cpu_ticks a = {.user = 1000, .system = 500, .idle = 8000, .steal = 100,
				 .valid = true};
	/* 10 s at 100 ticks/s: 800 busy ticks (8 CPU-seconds), 600 idle, 100 stolen */
	struct pb_cpu_ticks b = {.user = 1600, .system = 700, .idle = 8600, .steal = 200,
				 .valid = true};
	struct pb_machine_load l;
	pb_machine_load_between(&a, &b, 3.0, 10.0, 100, 0, &l);
	CHECK(l.valid);
	CHECK_MSG(fabs(l.cpus - 1.5) < 1e-12, "cpus %g", l.cpus);
	CHECK_MSG(fabs(l.other_cpus - 0.5) < 1e-12, "other %g", l.other_cpus);
	/* busy 800 of 1500: 1.96 sqrt(1500 x 8/15 x 7/15) = 37.8708 ticks, + 2 x 1.5 */
	CHECK_MSG(fabs(l.other_cpus_ci95 - 0.0408708) < 1e-6, "other ci %g", l.other_cpus_ci95);
	CHECK_MSG(fabs(l.steal_pct - 100.0 / 15) < 1e-9, "steal %g", l.steal_pct);
	/* stolen 100 of 1500: 1.96 sqrt(1500 x 1/15 x 14/15) = 18.9354 ticks, + 3 */
	CHECK_MSG(fabs(l.steal_ci95_pp - 1.462360) < 1e-5, "steal ci %g", l.steal_ci95_pp);
	/* more of our own than the ticks saw busy: no other work, never below 0 */
	pb_machine_load_between(&a, &b, 9.0, 10.0, 100, 0, &l);
	CHECK(l.valid && l.other_cpus == 0);
	/* iowait that went back (a NO_HZ kernel's may): counted as none, so the busy share stays
	 * within the total and every interval a number */
	struct pb_cpu_ticks c = b;
	a.iowait = 50;
	c.iowait = 20;
	pb_machine_load_between(&a, &c, 3.0, 10.0, 100, 0, &l);
	CHECK(l.valid && fabs(l.cpus - 1.5) < 1e-12 && isfinite(l.other_cpus_ci95) &&
	      isfinite(l.steal_ci95_pp));
	CHECK_MSG(fabs(l.other_cpus_ci95 - 0.0408708) < 1e-6, "other ci %g", l.other_cpus_ci95);
	a.iowait = 0;
	/* nothing to judge by: ticks that did not move or went back, no span, a reading missing */
	pb_machine_load_between(&a, &a, 0, 10.0, 100, 0, &l);
	CHECK(!l.valid);
	pb_machine_load_between(&b, &a, 0, 10.0, 100, 0, &l);
	CHECK(!l.valid);
	pb_machine_load_between(&a, &b, 0, 0, 100, 0, &l);
	CHECK(!l.valid);
	struct pb_cpu_ticks unread = {0};
	pb_machine_load_between(&unread, &b, 0, 10.0, 100, 0, &l);
	CHECK(!l.valid);
	/* a span of a few ticks: the ticks' own count of CPUs is off by one (7 ticks in 20 ms at
	 * 100 ticks/s: 3.5), the machine's online CPUs are not */
	struct pb_cpu_ticks d = a;
	d.user += 3;
	d.idle += 4;
	pb_machine_load_between(&a, &d, 0, 0.02, 100, 0, &l);
	CHECK_MSG(l.valid && fabs(l.cpus - 3.5) < 1e-12, "cpus %g", l.cpus);
	pb_machine_load_between(&a, &d, 0, 0.02, 100, 2, &l);
	CHECK_MSG(l.valid && l.cpus == 2, "cpus %g", l.cpus);
	/* whose interval spans more than the machine: said to tell nothing, never a figure */
	char text[256];
	pb_machine_load_text(&l, text, sizeof text);
	CHECK_MSG(strstr(text, "tell nothing of other work (±") &&
		  strstr(text, " of the 2 CPUs)") && !strstr(text, "other work kept"), "%s", text);
	pb_machine_load_between(&a, &b, 3.0, 10.0, 100, 0, &l);
	pb_machine_load_text(&l, text, sizeof text);
	CHECK_MSG(strstr(text, "other work kept 0.500 ±0.041 of the 2 CPUs busy"), "%s", text);
}

/* The ticks of a saved tree, and of one without /proc/stat. */
static void test_machine_cpu_ticks(void)
{
	char root[] = "/tmp/pb_ticks.XXXXXX";
	if (!CHECK_MSG(mkdtemp(root) != NULL, "mkdtemp %s", root))
		return;
	struct pb_machine m;
	memset(&m, 0, sizeof m);
	snprintf(m.root, sizeof m.root, "%s", root);
	struct pb_cpu_ticks t;
	pb_machine_cpu_ticks(&m, &t);
	CHECK(!t.valid);
	put(root, "proc/stat", "cpu  7 1 3 90 0 0 0 2\ncpu0 7 1 3 90 0 0 0 2\nintr 5\n");
	pb_machine_cpu_ticks(&m, &t);
	CHECK(t.valid && t.user == 7 && t.idle == 90 && t.steal == 2);
	/* the live machine's, where there is one */
	pb_machine_cpu_ticks(NULL, &t);
	struct stat st;
	if (stat("/proc/stat", &st) == 0)
		CHECK(t.valid && t.idle + t.user > 0);
	char cmd[64];
	snprintf(cmd, sizeof cmd, "rm -rf %s", root);
	CHECK(system(cmd) == 0);
}

int main(void)
{
	test_cpu_ticks_parse();
	test_machine_load();
	test_machine_cpu_ticks();
	test_notes();
	test_live_l1d();
	test_vm();
	test_zen4();
	test_zen5_caps_file_wins();
	test_skl();
	test_neoverse();
	test_qemu_a57();
	test_midr_only();
	test_riscv();
	test_kernel_log();
	test_missing_root();
	test_many_pmus();
	test_formats();
	test_live();
	return pb_check_done("machine");
}
