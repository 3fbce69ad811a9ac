/* Machine discovery from procfs/sysfs. Everything is read relative to a root so the same code
 * describes the live system ("") and the constructed trees under tests/fixtures/sysfs-*. */
#include "machine/machine.h"

#include <ctype.h>
#include <linux/perf_event.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#define CAP_PERFMON_BIT 38
#define CAP_SYS_ADMIN_BIT 21

static bool is_live(const struct pb_machine *m)
{
	return m->root[0] == '\0';
}

/* m NULL: this machine, as a live one's root is "" */
static void path_of(const struct pb_machine *m, char *out, size_t len, const char *rel)
{
	snprintf(out, len, "%s%s", m ? m->root : "", rel);
}

/* Reads a whole small file; returns its length or -1. Trailing newlines are removed. */
static long read_text(const char *path, char *buf, size_t len)
{
	if (len == 0)
		return -1;
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	size_t n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = '\0';
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return (long)n;
}

static long read_rel(const struct pb_machine *m, const char *rel, char *buf, size_t len)
{
	char path[512];
	path_of(m, path, sizeof path, rel);
	return read_text(path, buf, len);
}

long pb_machine_read_file(const struct pb_machine *m, const char *rel, char *buf, size_t len)
{
	return read_rel(m, rel, buf, len);
}

char *pb_machine_read_whole(const struct pb_machine *m, const char *rel, size_t max, size_t *len)
{
	char path[512];
	path_of(m, path, sizeof path, rel);
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 0, used = 0;
	char *buf = NULL;
	for (;;) {
		if (used + 1 >= cap) {
			/* a /proc file's size is 0 until read: grown as it comes */
			size_t want = cap ? 2 * cap : 1 << 16;
			char *more = want <= max + 2 ? realloc(buf, want) : NULL;
			if (!more)
				break;
			buf = more;
			cap = want;
		}
		size_t got = fread(buf + used, 1, cap - 1 - used, f);
		used += got;
		if (!got)
			break;
	}
	bool whole = buf && feof(f) && !ferror(f) && used <= max;
	fclose(f);
	if (!whole) {
		free(buf);
		return NULL;
	}
	buf[used] = '\0';
	*len = used;
	return buf;
}

static bool read_long(const char *path, long *out)
{
	char buf[64];
	if (read_text(path, buf, sizeof buf) <= 0)
		return false;
	char *end;
	errno = 0;
	long v = strtol(buf, &end, 0);
	if (errno || end == buf)
		return false;
	*out = v;
	return true;
}

static bool read_rel_long(const struct pb_machine *m, const char *rel, long *out)
{
	char path[512];
	path_of(m, path, sizeof path, rel);
	return read_long(path, out);
}

static void copy_str(char *dst, size_t len, const char *src)
{
	snprintf(dst, len, "%s", src);
}

static void parse_kernel_release(struct pb_machine *m)
{
	int major = 0, minor = 0;
	if (sscanf(m->kernel_release, "%d.%d", &major, &minor) == 2) {
		m->kernel_major = major;
		m->kernel_minor = minor;
	}
}

static void probe_kernel(struct pb_machine *m)
{
	char buf[128];
	if (read_rel(m, "/proc/sys/kernel/osrelease", buf, sizeof buf) > 0) {
		copy_str(m->kernel_release, sizeof m->kernel_release, buf);
	} else if (is_live(m)) {
		struct utsname u;
		if (uname(&u) == 0)
			copy_str(m->kernel_release, sizeof m->kernel_release, u.release);
	}
	parse_kernel_release(m);
}

/* "key\t: value" → value, or NULL if the line has another key. */
static const char *cpuinfo_value(const char *line, const char *key)
{
	size_t klen = strlen(key);
	if (strncmp(line, key, klen))
		return NULL;
	const char *p = line + klen;
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p != ':')
		return NULL;
	p++;
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

static const char *arm_implementer_name(unsigned id)
{
	switch (id) {
	case 0x41: return "ARM";
	case 0x42: return "Broadcom";
	case 0x43: return "Cavium";
	case 0x46: return "Fujitsu";
	case 0x48: return "HiSilicon";
	case 0x4e: return "NVIDIA";
	case 0x51: return "Qualcomm";
	case 0x61: return "Apple";
	case 0xc0: return "Ampere";
	}
	return NULL;
}

/* arm64 /proc/cpuinfo has no model name; the parts a user is likely to meet get one. */
static const char *arm_part_name(unsigned implementer, unsigned part)
{
	if (implementer != 0x41)
		return NULL;
	switch (part) {
	case 0xd03: return "Cortex-A53";
	case 0xd05: return "Cortex-A55";
	case 0xd07: return "Cortex-A57";
	case 0xd08: return "Cortex-A72";
	case 0xd0b: return "Cortex-A76";
	case 0xd0c: return "Neoverse N1";
	case 0xd40: return "Neoverse V1";
	case 0xd49: return "Neoverse N2";
	case 0xd4f: return "Neoverse V2";
	case 0xd8e: return "Neoverse N3";
	case 0xd84: return "Neoverse V3";
	}
	return NULL;
}

static void set_arm_cpu(struct pb_machine *m, unsigned implementer, unsigned arch, unsigned part,
			unsigned variant, unsigned revision)
{
	m->arm = true;
	m->arm_implementer = implementer;
	const char *vendor = arm_implementer_name(implementer);
	if (vendor)
		copy_str(m->cpu_vendor, sizeof m->cpu_vendor, vendor);
	else
		snprintf(m->cpu_vendor, sizeof m->cpu_vendor, "arm64-0x%02x", implementer);
	m->cpu_family = arch;
	m->cpu_model = part;
	m->cpu_stepping = variant << 4 | revision;
	const char *name = arm_part_name(implementer, part);
	if (m->cpu_model_name[0])
		return; /* arm64 cpuinfo has no model name; 32-bit kernels' wins */
	if (name)
		copy_str(m->cpu_model_name, sizeof m->cpu_model_name, name);
	else
		snprintf(m->cpu_model_name, sizeof m->cpu_model_name, "%s part 0x%03x r%up%u",
			 m->cpu_vendor, part, variant, revision);
}

static void probe_cpuinfo(struct pb_machine *m, unsigned *processors)
{
	char path[512];
	path_of(m, path, sizeof path, "/proc/cpuinfo");
	FILE *f = fopen(path, "r");
	*processors = 0;
	if (!f)
		return;
	char line[8192];
	bool first_seen = false, arm = false;
	unsigned implementer = 0, part = 0, variant = 0, revision = 0, arch = 0;
	while (fgets(line, sizeof line, f)) {
		line[strcspn(line, "\n")] = '\0';
		const char *v;
		if ((v = cpuinfo_value(line, "processor"))) {
			/* arm64 kernels before 3.19 printed "Processor : AArch64 ..." once */
			if (isdigit((unsigned char)*v))
				(*processors)++;
			if (*processors > 1)
				first_seen = true;
			continue;
		}
		if (first_seen)
			continue; /* the first CPU describes the machine; the rest only count */
		if ((v = cpuinfo_value(line, "vendor_id")))
			copy_str(m->cpu_vendor, sizeof m->cpu_vendor, v);
		else if ((v = cpuinfo_value(line, "cpu family")))
			m->cpu_family = (unsigned)strtoul(v, NULL, 0);
		else if ((v = cpuinfo_value(line, "model name")))
			copy_str(m->cpu_model_name, sizeof m->cpu_model_name, v);
		else if ((v = cpuinfo_value(line, "model")))
			m->cpu_model = (unsigned)strtoul(v, NULL, 0);
		else if ((v = cpuinfo_value(line, "stepping")))
			m->cpu_stepping = (unsigned)strtoul(v, NULL, 0);
		else if ((v = cpuinfo_value(line, "flags"))) {
			char flags[8192];
			snprintf(flags, sizeof flags, " %s ", v);
			m->hypervisor = strstr(flags, " hypervisor ") != NULL;
		} else if ((v = cpuinfo_value(line, "CPU implementer"))) {
			arm = true;
			implementer = (unsigned)strtoul(v, NULL, 0);
		} else if ((v = cpuinfo_value(line, "CPU architecture")))
			arch = (unsigned)strtoul(v, NULL, 0);
		else if ((v = cpuinfo_value(line, "CPU variant")))
			variant = (unsigned)strtoul(v, NULL, 0);
		else if ((v = cpuinfo_value(line, "CPU part")))
			part = (unsigned)strtoul(v, NULL, 0);
		else if ((v = cpuinfo_value(line, "CPU revision")))
			revision = (unsigned)strtoul(v, NULL, 0);
	}
	fclose(f);
	if (arm)
		set_arm_cpu(m, implementer, arch, part, variant, revision);
}

/* cpu0's MIDR_EL1 as the kernel exports it (arm64 since 4.11): the same identity as
 * /proc/cpuinfo's CPU lines, and present where cpuinfo is not (a minimal guest, a saved tree);
 * where both exist they agree, and the register wins. */
static void probe_midr(struct pb_machine *m)
{
	char buf[64];
	if (read_rel(m, "/sys/devices/system/cpu/cpu0/regs/identification/midr_el1", buf,
		     sizeof buf) <= 0)
		return;
	char *end;
	errno = 0;
	unsigned long long midr = strtoull(buf, &end, 0);
	if (errno || end == buf || !midr)
		return;
	m->midr = midr;
	unsigned implementer = (unsigned)(midr >> 24) & 0xff, variant = (unsigned)(midr >> 20) & 0xf,
		 part = (unsigned)(midr >> 4) & 0xfff, revision = (unsigned)midr & 0xf;
	/* MIDR's architecture field is 0xf ("see the ID registers") on every AArch64 CPU */
	set_arm_cpu(m, implementer, m->cpu_family ? m->cpu_family : 8, part, variant, revision);
}

static void probe_caps_live(struct pb_machine *m)
{
	m->is_root = geteuid() == 0;
	FILE *f = fopen("/proc/self/status", "r");
	if (!f)
		return;
	char line[256];
	while (fgets(line, sizeof line, f)) {
		unsigned long long eff;
		if (sscanf(line, "CapEff: %llx", &eff) == 1) {
			m->cap_perfmon = (eff >> CAP_PERFMON_BIT) & 1;
			m->cap_sys_admin = (eff >> CAP_SYS_ADMIN_BIT) & 1;
		}
	}
	fclose(f);
}

/* Fixtures describe the user with "perfmon=1\nsys_admin=0\nroot=0" in <root>/pesbench-caps. */
static void probe_caps_fixture(struct pb_machine *m)
{
	char buf[256];
	if (read_rel(m, "/pesbench-caps", buf, sizeof buf) < 0)
		return;
	char *save = NULL;
	for (char *line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		int v;
		if (sscanf(line, "perfmon=%d", &v) == 1)
			m->cap_perfmon = v != 0;
		else if (sscanf(line, "sys_admin=%d", &v) == 1)
			m->cap_sys_admin = v != 0;
		else if (sscanf(line, "root=%d", &v) == 1)
			m->is_root = v != 0;
	}
}

/* Appends "name=value\n" for every regular file of dir, only whole lines. */
static void read_dir_entries(const char *dir, char *out, size_t len)
{
	out[0] = '\0';
	DIR *d = opendir(dir);
	if (!d)
		return;
	char names[64][64];
	unsigned n = 0;
	struct dirent *e;
	while ((e = readdir(d)) && n < 64) {
		if (e->d_name[0] == '.' || strlen(e->d_name) >= sizeof names[0])
			continue;
		copy_str(names[n++], sizeof names[0], e->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof names[0], (int (*)(const void *, const void *))strcmp);
	size_t used = 0;
	for (unsigned i = 0; i < n; i++) {
		char path[768], value[160];
		if (snprintf(path, sizeof path, "%s/%s", dir, names[i]) >= (int)sizeof path)
			continue;
		struct stat st;
		if (stat(path, &st) || !S_ISREG(st.st_mode))
			continue;
		if (read_text(path, value, sizeof value) < 0)
			continue;
		value[strcspn(value, "\n")] = '\0';
		int w = snprintf(out + used, len - used, "%s=%s\n", names[i], value);
		if (w < 0 || (size_t)w >= len - used) {
			out[used] = '\0';
			break;
		}
		used += (size_t)w;
	}
}

static int pmu_name_cmp(const void *a, const void *b)
{
	/* Core and sampling PMUs first: an SPR server has over a hundred uncore_* PMUs. */
	const char *x = a, *y = b;
	bool ux = !strncmp(x, "uncore_", 7), uy = !strncmp(y, "uncore_", 7);
	if (ux != uy)
		return ux ? 1 : -1;
	return strcmp(x, y);
}

static bool is_core_pmu_name(const char *name)
{
	return !strcmp(name, "cpu") || !strcmp(name, "cpu_core") || !strcmp(name, "cpu_atom") ||
	       !strcmp(name, "cpu_lowpower") || !strncmp(name, "armv8_", 6) ||
	       !strncmp(name, "armv9_", 6);
}

/* The hybrid part of a PMU: whether it is a core PMU and which CPUs it covers. */
static void probe_pmu_cpus(const char *dir, struct pb_pmu *p)
{
	char path[768];
	snprintf(path, sizeof path, "%s/%s/cpus", dir, p->name);
	if (read_text(path, p->cpus, sizeof p->cpus) < 0)
		p->cpus[0] = '\0';
	p->core = is_core_pmu_name(p->name);
	p->precise_opened = -1;
}

static void probe_pmus(struct pb_machine *m)
{
	char dir[512];
	path_of(m, dir, sizeof dir, "/sys/bus/event_source/devices");
	DIR *d = opendir(dir);
	if (!d)
		return;
	enum { MAX_NAMES = 1024 };
	char(*names)[64] = calloc(MAX_NAMES, 64);
	unsigned n = 0;
	struct dirent *e;
	while (names && (e = readdir(d)) && n < MAX_NAMES) {
		if (e->d_name[0] == '.' || strlen(e->d_name) >= 64)
			continue;
		copy_str(names[n++], 64, e->d_name);
	}
	closedir(d);
	if (!names)
		return;
	qsort(names, n, 64, pmu_name_cmp);
	for (unsigned i = 0; i < n; i++) {
		char path[768];
		long type;
		snprintf(path, sizeof path, "%s/%s/type", dir, names[i]);
		if (!read_long(path, &type))
			continue;
		if (m->npmus == PB_MAX_PMUS) {
			m->pmus_skipped++;
			continue;
		}
		struct pb_pmu *p = &m->pmus[m->npmus++];
		copy_str(p->name, sizeof p->name, names[i]);
		p->type = (int)type;
		snprintf(path, sizeof path, "%s/%s/caps", dir, names[i]);
		read_dir_entries(path, p->caps, sizeof p->caps);
		snprintf(path, sizeof path, "%s/%s/format", dir, names[i]);
		read_dir_entries(path, p->formats, sizeof p->formats);
		probe_pmu_cpus(dir, p);
	}
	free(names);
}

/* Cache sizes are written "48K" or "2048K" (or plain bytes in some fixtures). */
static unsigned parse_size(const char *text)
{
	char *end;
	unsigned long v = strtoul(text, &end, 10);
	if (*end == 'K' || *end == 'k')
		v *= 1024;
	else if (*end == 'M' || *end == 'm')
		v *= 1024 * 1024;
	return (unsigned)v;
}

#if defined(__x86_64__) || defined(__i386__)
/* One deterministic cache-parameters subleaf (Intel leaf 4, AMD leaf 0x8000001D share the
 * layout): the level-1 data cache's size and line, when this subleaf describes it. */
static bool cpuid_l1d_subleaf(unsigned leaf, unsigned sub, unsigned *size, unsigned *line)
{
	unsigned a, b, c, d;
	__cpuid_count(leaf, sub, a, b, c, d);
	unsigned type = a & 0x1f, level = (a >> 5) & 0x7;
	if (type != 1 || level != 1)
		return false;
	unsigned ways = (b >> 22) + 1, partitions = ((b >> 12) & 0x3ff) + 1,
		 line_size = (b & 0xfff) + 1, sets = c + 1;
	*size = ways * partitions * line_size * sets;
	*line = line_size;
	(void)d;
	return true;
}

/* Where sysfs has no cache directory (some VMs), CPUID still describes the L1D the guest sees. */
static bool cpuid_l1d(unsigned *size, unsigned *line)
{
	unsigned a, b, c, d;
	unsigned max = __get_cpuid_max(0, NULL);
	unsigned max_ext = __get_cpuid_max(0x80000000, NULL);
	bool amd_topology = max_ext >= 0x80000001 && __get_cpuid(0x80000001, &a, &b, &c, &d) &&
			    (c & (1u << 22));
	unsigned leaf = max >= 4 ? 4 : 0;
	if (amd_topology && max_ext >= 0x8000001D)
		leaf = 0x8000001D;
	for (unsigned sub = 0; leaf && sub < 8; sub++)
		if (cpuid_l1d_subleaf(leaf, sub, size, line))
			return true;
	/* AMD's older leaf: ECX[31:24] KiB, ECX[7:0] line bytes */
	if (max_ext >= 0x80000005 && __get_cpuid(0x80000005, &a, &b, &c, &d) && (c >> 24)) {
		*size = (c >> 24) * 1024;
		*line = c & 0xff;
		return true;
	}
	return false;
}
#else
static bool cpuid_l1d(unsigned *size, unsigned *line)
{
	(void)size;
	(void)line;
	return false;
}
#endif

static void probe_l1d(struct pb_machine *m)
{
	m->l1d_source = "";
	for (unsigned i = 0; i < 16; i++) {
		char rel[160], buf[64];
		long level;
		snprintf(rel, sizeof rel, "/sys/devices/system/cpu/cpu0/cache/index%u/level", i);
		if (!read_rel_long(m, rel, &level))
			continue;
		snprintf(rel, sizeof rel, "/sys/devices/system/cpu/cpu0/cache/index%u/type", i);
		if (level != 1 || read_rel(m, rel, buf, sizeof buf) <= 0 || strcmp(buf, "Data"))
			continue;
		snprintf(rel, sizeof rel, "/sys/devices/system/cpu/cpu0/cache/index%u/size", i);
		if (read_rel(m, rel, buf, sizeof buf) > 0 && (m->l1d_size = parse_size(buf)))
			m->l1d_source = "sysfs";
		long line;
		snprintf(rel, sizeof rel,
			 "/sys/devices/system/cpu/cpu0/cache/index%u/coherency_line_size", i);
		if (read_rel_long(m, rel, &line) && line > 0)
			m->l1d_line = (unsigned)line;
		return;
	}
	/* only this machine's CPU can be asked; a saved tree says what its files say */
	if (!m->root[0] && cpuid_l1d(&m->l1d_size, &m->l1d_line))
		m->l1d_source = "cpuid";
}

/* The number after prefix in line, if line holds prefix. */
static bool number_after(const char *line, const char *prefix, unsigned *out)
{
	const char *p = strstr(line, prefix);
	if (!p)
		return false;
	p += strlen(prefix);
	while (*p == ' ' || *p == '\t')
		p++;
	if (!isdigit((unsigned char)*p))
		return false;
	*out = (unsigned)strtoul(p, NULL, 10);
	return true;
}

void pb_machine_parse_kernel_log(struct pb_machine *m, const char *log)
{
	unsigned generic = 0, fixed = 0, n;
	bool have_generic = false, have_fixed = false;
	for (const char *line = log; line && *line;) {
		const char *eol = strchr(line, '\n');
		size_t len = eol ? (size_t)(eol - line) : strlen(line);
		char text[512];
		snprintf(text, sizeof text, "%.*s", (int)(len < sizeof text ? len : sizeof text - 1), line);
		line = eol ? eol + 1 : NULL;
		/* arm64: "... PMU driver, 7 counters available" (6.1) or
		 * "... PMU driver, 7 (0,8000003f) counters available" (6.5+); the first core PMU */
		if (!m->pmu_counters && strstr(text, "hw perfevents: enabled with ") &&
		    strstr(text, "counters available") && number_after(text, "PMU driver,", &n) && n) {
			m->pmu_counters = n;
			m->pmu_counters_source = "kernel log";
		}
		/* x86: the first PMU's lines (a hybrid CPU prints one block per core type) */
		if (!have_generic && number_after(text, "... generic registers:", &generic))
			have_generic = true;
		if (!have_fixed && number_after(text, "... fixed-purpose events:", &fixed))
			have_fixed = true;
	}
	if (!m->pmu_counters && have_generic && generic) {
		m->pmu_counters = generic + (have_fixed ? fixed : 0);
		m->pmu_counters_source = "kernel log";
	}
}

char *pb_machine_kernel_log(const struct pb_machine *m)
{
	char *log = NULL;
	if (is_live(m)) {
		int size = klogctl(10 /* SYSLOG_ACTION_SIZE_BUFFER */, NULL, 0);
		if (size <= 0 || !(log = malloc((size_t)size + 1)))
			return NULL;
		int n = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, log, size);
		if (n < 0) {
			free(log);
			return NULL;
		}
		log[n] = '\0';
		return log;
	}
	char path[512];
	path_of(m, path, sizeof path, "/pesbench-dmesg");
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	size_t cap = 1 << 20, used = 0;
	log = malloc(cap);
	if (log) {
		used = fread(log, 1, cap - 1, f);
		log[used] = '\0';
	}
	fclose(f);
	return log;
}

static void probe_kernel_log(struct pb_machine *m)
{
	char *log = pb_machine_kernel_log(m);
	if (!log)
		return;
	pb_machine_parse_kernel_log(m, log);
	pb_machine_parse_riscv_log(m, log);
	free(log);
}

/* The first hart's "isa" line: RISC-V's /proc/cpuinfo has no vendor or model lines that
 * other CPUs' have (mvendorid/marchid need a newer kernel), so the ISA string is its identity. */
static void probe_riscv_isa(struct pb_machine *m)
{
	char path[512];
	path_of(m, path, sizeof path, "/proc/cpuinfo");
	FILE *f = fopen(path, "r");
	if (!f)
		return;
	char line[1024];
	while (fgets(line, sizeof line, f)) {
		line[strcspn(line, "\n")] = '\0';
		const char *v = cpuinfo_value(line, "isa");
		if (!v)
			continue;
		m->riscv = true;
		copy_str(m->riscv_isa, sizeof m->riscv_isa, v);
		/* multi-letter extensions follow '_'; the string is lower case */
		char isa[300];
		snprintf(isa, sizeof isa, "%s_", v);
		m->riscv_sscofpmf = strstr(isa, "_sscofpmf_") != NULL;
		if (!m->cpu_vendor[0])
			copy_str(m->cpu_vendor, sizeof m->cpu_vendor, "RISC-V");
		if (!m->cpu_model_name[0])
			copy_str(m->cpu_model_name, sizeof m->cpu_model_name, v);
		break;
	}
	fclose(f);
}

void pb_machine_parse_riscv_log(struct pb_machine *m, const char *log)
{
	const char *p = log ? strstr(log, "riscv-pmu-sbi: ") : NULL;
	unsigned fw, hw;
	for (; p; p = strstr(p + 1, "riscv-pmu-sbi: "))
		if (sscanf(p, "riscv-pmu-sbi: %u firmware and %u hardware counters", &fw, &hw) == 2) {
			m->riscv_fw_counters = fw;
			if (!m->pmu_counters) {
				m->pmu_counters = hw;
				m->pmu_counters_source = "kernel log";
			}
			return;
		}
}

const struct pb_pmu *pb_machine_core_pmu(const struct pb_machine *m)
{
	const struct pb_pmu *p = pb_machine_pmu(m, "cpu");
	if (!p)
		p = pb_machine_pmu(m, "cpu_core");
	for (unsigned i = 0; !p && i < m->npmus; i++)
		if (!strncmp(m->pmus[i].name, "armv8_", 6) || !strncmp(m->pmus[i].name, "armv9_", 6))
			p = &m->pmus[i];
	return p;
}

unsigned pb_machine_core_pmus(const struct pb_machine *m, const struct pb_pmu **out,
			      unsigned max)
{
	unsigned n = 0;
	for (unsigned i = 0; i < m->npmus && n < max; i++)
		if (m->pmus[i].core)
			out[n++] = &m->pmus[i];
	return n;
}

void pb_machine_read(struct pb_machine *m, const char *root)
{
	memset(m, 0, sizeof *m);
	copy_str(m->root, sizeof m->root, root ? root : "");
	m->paranoid = -99;
	m->max_sample_rate = -1;

	probe_kernel(m);
	unsigned processors = 0;
	probe_cpuinfo(m, &processors);
	probe_midr(m);
	probe_riscv_isa(m);
	long v;
	if (read_rel_long(m, "/proc/sys/kernel/perf_event_paranoid", &v))
		m->paranoid = (int)v;
	if (read_rel_long(m, "/proc/sys/kernel/perf_event_max_sample_rate", &v))
		m->max_sample_rate = v;
	if (is_live(m)) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);
		m->ncpus = n > 0 ? (unsigned)n : processors;
		probe_caps_live(m);
	} else {
		m->ncpus = processors;
		probe_caps_fixture(m);
	}
	probe_pmus(m);
	probe_kernel_log(m);
	m->has_format_lost = pb_machine_kernel_at_least(m, 6, 0);
	probe_l1d(m);
}

const struct pb_pmu *pb_machine_pmu(const struct pb_machine *m, const char *name)
{
	for (unsigned i = 0; i < m->npmus; i++)
		if (!strcmp(m->pmus[i].name, name))
			return &m->pmus[i];
	return NULL;
}

bool pb_machine_note_set(struct pb_machine *m, const char *key, long long value)
{
	unsigned i = 0;
	while (i < m->nnotes && strcmp(m->notes[i].key, key))
		i++;
	if (strlen(key) >= sizeof m->notes[0].key || (i == m->nnotes && i == PB_MACHINE_NOTES))
		return false;
	copy_str(m->notes[i].key, sizeof m->notes[i].key, key);
	m->notes[i].value = value;
	if (i == m->nnotes)
		m->nnotes++;
	return true;
}

bool pb_machine_note_get(const struct pb_machine *m, const char *key, long long *value)
{
	for (unsigned i = 0; i < m->nnotes; i++)
		if (!strcmp(m->notes[i].key, key)) {
			*value = m->notes[i].value;
			return true;
		}
	return false;
}

bool pb_machine_kernel_at_least(const struct pb_machine *m, int major, int minor)
{
	return m->kernel_major > major || (m->kernel_major == major && m->kernel_minor >= minor);
}

bool pb_machine_is_x86(const struct pb_machine *m)
{
	return !strcmp(m->cpu_vendor, "GenuineIntel") || !strcmp(m->cpu_vendor, "AuthenticAMD") ||
	       !strcmp(m->cpu_vendor, "HygonGenuine");
}

bool pb_machine_is_riscv(const struct pb_machine *m)
{
	return m->riscv;
}

bool pb_machine_is_arm(const struct pb_machine *m)
{
	return m->arm;
}

bool pb_machine_may_sample_kernel(const struct pb_machine *m)
{
	return m->cap_perfmon || m->cap_sys_admin || (m->paranoid != -99 && m->paranoid <= 1);
}
