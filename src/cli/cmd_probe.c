/* `pesbench probe`: what this machine offers for sampling, and for every facility whether it
 * can run here and, when not, why. */
#include "cli/commands.h"
#include "cli/options.h"
#include "facilities/facility.h"
#include "io/probe_json.h"
#include "present/summary.h"
#include "util/error.h"
#include "util/text.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* A facility's spec syntax from column col, broken before a "[" or after a "|" outside
 * brackets where it would run past the summary's width, each further line under the first. */
static void print_usage(int col, const char *usage)
{
	while ((int)strlen(usage) > PB_TEXT_WIDTH - col) {
		int room = PB_TEXT_WIDTH - col, cut = 0, depth = usage[0] == '[';
		for (int i = 1; i <= room; i++) {
			/* an alternative inside brackets ("[:ops|:cycles]") stays whole */
			if (usage[i] == '[' || (usage[i - 1] == '|' && !depth))
				cut = i;
			depth += (usage[i] == '[') - (usage[i] == ']');
		}
		if (!cut)
			break;
		printf("%.*s\n%*s", cut, usage, col, "");
		usage += cut;
	}
	printf("%s\n", usage);
}

static int print_json(const struct pb_machine *m)
{
	return pb_cli_print_json("probe", pb_probe_json(m), 2);
}

/* One line per core PMU: a hybrid machine has one per kind of core, each on its own CPUs. */
static void print_core_pmus(const struct pb_machine *m)
{
	const struct pb_pmu *core[PB_MAX_PMUS];
	unsigned n = pb_machine_core_pmus(m, core, PB_MAX_PMUS);
	const struct pb_pmu *first = pb_machine_core_pmu(m);
	if (!n) {
		printf("  core PMU         none\n");
		return;
	}
	for (unsigned i = 0; i < n; i++) {
		char counters[64] = ", counters unknown", cpus[96] = "", buf[16];
		if (core[i] == first && m->pmu_counters)
			snprintf(counters, sizeof counters, ", %u counters (from the %s)",
				 m->pmu_counters, m->pmu_counters_source);
		else if (core[i] != first)
			counters[0] = '\0';
		if (core[i]->cpus[0])
			snprintf(cpus, sizeof cpus, ", CPUs %.80s", core[i]->cpus);
		printf("  %-16s %s (type %d)%s%s\n", i ? "" : n > 1 ? "core PMUs" : "core PMU",
		       core[i]->name, core[i]->type, cpus, counters);
		const char *caps = pb_pmu_caps(core[i], "max_precise", buf, sizeof buf);
		if (core[i]->precise_opened >= 0 && caps)
			printf("  %-16s   precise_ip up to %d accepted by opening, %s by its caps\n", "",
			       core[i]->precise_opened, caps);
		else if (core[i]->precise_opened >= 0)
			/* a driver without precise sampling (arm_pmu) accepts any level and ignores it */
			printf("  %-16s   precise_ip up to %d accepted by opening; no max_precise in caps "
			       "(may go unused)\n", "", core[i]->precise_opened);
		else if (caps)
			printf("  %-16s   max_precise %s (caps)\n", "", caps);
	}
}

/* The facilities' own facts of the machine that have a line of text. */
static void print_facts(const struct pb_machine *m)
{
	struct pb_machine_fact facts[PB_MAX_MACHINE_FACTS];
	unsigned n = pb_machine_facts(m, facts, PB_MAX_MACHINE_FACTS);
	for (unsigned i = 0; i < n; i++)
		if (facts[i].label)
			printf("  %-16s %s\n", facts[i].label, facts[i].line);
}

static void print_text(const struct pb_machine *m)
{
	if (m->root[0])
		printf("machine (read from %s)\n", m->root);
	else
		printf("machine\n");
	printf("  kernel           %s\n", m->kernel_release[0] ? m->kernel_release : "unknown");
	printf("  cpu              %s family %u model %u (0x%x) stepping %u\n",
	       m->cpu_vendor[0] ? m->cpu_vendor : "unknown", m->cpu_family, m->cpu_model,
	       m->cpu_model, m->cpu_stepping);
	printf("  model name       %s\n", m->cpu_model_name[0] ? m->cpu_model_name : "unknown");
	printf("  hypervisor       %s\n", m->hypervisor ? "yes (virtual machine)" : "no");
	printf("  cpus             %u\n", m->ncpus);
	if (m->paranoid == -99)
		printf("  paranoid         unreadable\n");
	else
		printf("  paranoid         %d\n", m->paranoid);
	printf("  privileges       %s%s%s%s\n", m->is_root ? "root " : "",
	       m->cap_perfmon ? "CAP_PERFMON " : "", m->cap_sys_admin ? "CAP_SYS_ADMIN" : "",
	       !m->is_root && !m->cap_perfmon && !m->cap_sys_admin ? "none" : "");
	if (m->max_sample_rate >= 0)
		printf("  max sample rate  %ld/s\n", m->max_sample_rate);
	else
		printf("  max sample rate  unreadable\n");
	if (m->l1d_size)
		printf("  L1D              %u KiB, %u-byte lines (from %s)\n", m->l1d_size / 1024,
		       m->l1d_line, m->l1d_source);
	else
		printf("  L1D              unknown (neither sysfs nor CPUID says; workloads assume "
		       "32 KiB)\n");
	if (m->midr)
		printf("  MIDR_EL1         0x%016llx\n", (unsigned long long)m->midr);
	if (m->riscv)
		printf("  RISC-V ISA       %s\n  Sscofpmf         %s\n", m->riscv_isa,
		       m->riscv_sscofpmf ? "present: counter-overflow interrupts, sampling works"
					 : "ABSENT: counting only, no overflow interrupt to sample with\n"
					   "                   (needs a core with Sscofpmf and an SBI "
					   "firmware with the PMU extension)");
	print_core_pmus(m);
	print_facts(m);
	printf("  PMUs            ");
	for (unsigned i = 0; i < m->npmus; i++)
		printf(" %s(%d)", m->pmus[i].name, m->pmus[i].type);
	if (m->pmus_skipped)
		printf(" and %u more", m->pmus_skipped);
	printf("\n\n");

	printf("%-10s %-9s %-8s %-6s %-9s %s\n", "facility", "available", "verdict", "exact", "ip",
	       "usage");
	for (const struct pb_facility *const *f = pb_facility_list(); *f; f++) {
		struct pb_availability av;
		struct pb_self_test test;
		pb_facility_check(m, NULL, *f, &av, &test);
		int col = printf("%-10s %-9s %-8s %-6s %-9s ", (*f)->name, av.available ? "yes" : "no",
				 pb_verdict_name(test.verdict), (*f)->exact ? "yes" : "no",
				 pb_ip_kind_name(pb_facility_ip_kind(m, *f)));
		print_usage(col, (*f)->usage);
		/* the notes under a facility wrap at the summary's width, under its usage column's
		 * start: a reason of 190 characters ran past a terminal of 100 columns */
		char first[64];
		if (test.verdict != PB_VERDICT_ABSENT) {
			snprintf(first, sizeof first, "%-10s self-test (%.1f ms):", "", test.ms);
			pb_text_wrapped(stdout, first, test.text, 11);
		}
		const char *why = av.available ? av.detail : av.reason;
		if (why[0] && test.verdict != PB_VERDICT_INERT && test.verdict != PB_VERDICT_INEXACT &&
		    test.verdict != PB_VERDICT_REFUSED) {
			snprintf(first, sizeof first, "%-10s %s", "", av.available ? "" : "why:");
			pb_text_wrapped(stdout, first, why, 11);
		}
	}
}

struct probe_args {
	const char *root;
	bool json;
};

static int set_root(void *args, const char *value, struct pb_error *err)
{
	if (!*value)
		return pb_fail(err, PB_EXIT_USAGE, 0, "--root needs a directory");
	((struct probe_args *)args)->root = value;
	return 0;
}

/* The facilities' own members of the JSON's "machine", as their descriptors name them: a
 * machine that says nothing (zeroed) still gets every one, null where unknown. */
static void list_facility_facts(FILE *out)
{
	static struct pb_machine unknown;
	struct pb_machine_fact facts[PB_MAX_MACHINE_FACTS];
	unsigned n = pb_machine_facts(&unknown, facts, PB_MAX_MACHINE_FACTS);
	fputs("The facilities' own facts of the machine, each a member of the JSON's \"machine\"\n"
	      "(null: not known here):\n",
	      out);
	for (unsigned i = 0; i < n; i++)
		if (facts[i].title)
			fprintf(out, "  %-16s %s\n", facts[i].key, facts[i].title);
		else
			fprintf(out, "  %s\n", facts[i].key);
}

static const struct pb_opt probe_options[] = {
	{.name = "json", .kind = PB_OPT_FLAG, .at = PB_AT(struct probe_args, json, bool),
	 .help = "machine-readable output (schema below)"},
	{.name = "root", .arg = "DIR", .kind = PB_OPT_CALL, .parse = set_root, .example = "/",
	 .help = "read /proc and /sys under DIR instead of the live system (a saved or "
		 "constructed tree such as tests/fixtures/sysfs-zen4)"},
	{0},
};

const struct pb_cmd_spec pb_cmd_probe_spec = {
	.name = "probe",
	.summary = "list every sampling facility, available or not, and why",
	.description =
		"Describes the machine (kernel, CPU, hypervisor, privileges, PMUs, L1D) and lists every\n"
		"sampling facility: whether it is available here, whether its counts are exact, where\n"
		"its sample IP lands (exact, next-insn, skid), and the reason when it is not available.\n",
	.extra = list_facility_facts,
	.options = probe_options,
	.args_size = sizeof(struct probe_args),
	.epilogue =
		"JSON schema \"pesbench-probe/1\":\n"
		"  {\"schema\": \"pesbench-probe/1\",\n"
		"   \"machine\": {\"root\", \"kernel\", \"kernel_major\", \"kernel_minor\", \"cpu_vendor\",\n"
		"               \"cpu_family\", \"cpu_model\", \"cpu_stepping\", \"cpu_model_name\",\n"
		"               \"hypervisor\", \"ncpus\", \"paranoid\" (null: unreadable),\n"
		"               \"max_sample_rate\" (null), \"cap_perfmon\", \"cap_sys_admin\", \"is_root\",\n"
		"               the facilities' own facts (listed above), \"has_format_lost\",\n"
		"               \"l1d_size\", \"l1d_line\",\n"
		"               \"l1d_source\" (\"sysfs\"|\"cpuid\"|\"\" unknown),\n"
		"               \"arm\", \"midr\" (null unless arm64 exports it), \"riscv\",\n"
		"               \"riscv_isa\" (\"\" unless RISC-V), \"riscv_sscofpmf\",\n"
		"               \"riscv_fw_counters\" (SBI firmware counters), \"core_pmu\"\n"
		"               (\"\" none: cpu, cpu_core, armv8_pmuv3...), \"core_pmu_type\" (null),\n"
		"               \"pmu_counters\" (null: unknown), \"pmu_counters_source\"\n"
		"               (\"kernel log\"|\"\"),\n"
		"               \"pmus\": [{\"name\", \"type\"}], \"pmus_skipped\",\n"
		"               \"core_pmus\": [{\"name\", \"type\", \"cpus\" (\"\" none),\n"
		"               \"max_precise\" (caps; null), \"precise_opened\" (null: not tried)}]},\n"
		"   \"facilities\": [{\"name\", \"usage\", \"summary\", \"needs\", \"available\",\n"
		"                   \"reason\" (\"\" when available), \"detail\" (\"\" when not),\n"
		"                   \"exact\", \"ip\" (\"exact\"|\"next-insn\"|\"skid\"),\n"
		"                   \"verdict\" (\"works\"|\"inert\"|\"inexact\"|\"refused\"|\"absent\"|\n"
		"                   \"untested\" on a --root tree), \"self_test\" (null when nothing ran,\n"
		"                   else {\"verdict\", \"expected\", \"counted\", \"samples\",\n"
		"                   \"samples_inside\", \"ms\", \"errno\", \"text\", \"attempts\",\n"
		"                   \"earlier_attempts\" (what each retried run gave, \"\" none),\n"
		"                   \"wrong_level_samples\" (at a kernel IP, the kernel excluded)})}]}\n\n"
		"Every available facility is self-tested first: a tiny known loop runs under it and\n"
		"its count (or samples) is checked. The kernel accepting an event is no proof that it\n"
		"works; a facility whose self-test did not pass is shown unavailable, and nothing\n"
		"else in pesbench measures on it.\n\n"
		"Exit status: 0, or 2 for a bad option or an unreadable --root.\n",
};

int pb_cmd_probe(int argc, char **argv)
{
	struct probe_args a = {0};
	int rest, rc = pb_options_run(&pb_cmd_probe_spec, argc, argv, &a, &rest);
	if (rc >= 0)
		return rc;
	bool json = a.json;
	const char *root = a.root;
	struct pb_error err = {0};
	static struct pb_machine fixture; /* ~80 KiB */
	const struct pb_machine *m;
	if (root) {
		struct stat st;
		if (stat(root, &st) || !S_ISDIR(st.st_mode)) {
			pb_fail(&err, PB_EXIT_USAGE, 0, "--root %s is not a directory", root);
			return pb_cli_report("probe", &err);
		}
		pb_machine_probe(&fixture, root);
		m = &fixture;
	} else {
		m = pb_machine_live();
	}
	if (json)
		return print_json(m);
	print_text(m);
	return PB_EXIT_OK;
}
