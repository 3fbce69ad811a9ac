/* A kernel uprobe on one instruction of a user binary, opened through the uprobe PMU. The
 * kernel wants a path and a *file offset*, computed here from the ELF program headers of the
 * object that holds the runtime address. Counts and IPs are exact. */
#include "facilities/facility.h"
#include "facilities/selftest.h"
#include "facilities/uprobe.h"
#include "workloads/workload.h"

#include <errno.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const struct pb_spec_option uprobe_words[] = {
	{.word = "ret", .kind = PB_SPEC_FLAG, .bits = 1,
	 .help = "fire on the function's return (a uretprobe) instead of its entry"},
};

static const struct pb_spec_options uprobe_options =
	PB_SPEC_OPTIONS(uprobe_words, .what = "uprobe option",
			.hint = "use 'uprobe' or 'uprobe:ret'");

static int uprobe_parse(struct pb_spec *spec, const char *args, struct pb_error *err)
{
	if (pb_spec_options_parse(&uprobe_options, spec, args, NULL, err))
		return -1;
	snprintf(spec->event, sizeof spec->event, "%s", spec->options ? "uretprobe" : "uprobe");
	return 0;
}

static void uprobe_availability(const struct pb_machine *m, const struct pb_spec *spec,
				struct pb_availability *out)
{
	(void)spec;
	memset(out, 0, sizeof *out);
	if (!pb_machine_pmu(m, "uprobe")) {
		snprintf(out->reason, sizeof out->reason,
			 "no 'uprobe' PMU: the kernel lacks CONFIG_UPROBE_EVENTS (or is older than "
			 "4.17)");
		return;
	}
	if (!m->cap_sys_admin && !m->is_root) {
		snprintf(out->reason, sizeof out->reason,
			 "uprobe perf events need CAP_SYS_ADMIN since the 2025 revert (ba677dbe77af); "
			 "run as root or grant CAP_SYS_ADMIN");
		return;
	}
	out->available = true;
	/* The site classes differ by architecture (uprobe_site.c): x86 optimizes a 5-byte nop
	 * into a call, arm64 has no such rewrite and simulates only branches, adr and nop. */
	if (pb_machine_is_arm(m))
		snprintf(out->detail, sizeof out->detail,
			 "exact count and IP; a hit on a branch or adr (a nop since 6.13) is simulated "
			 "inside one trap, most other instructions are single-stepped out of line (two "
			 "traps), literal loads and exclusives refused");
	else
		snprintf(out->detail, sizeof out->detail,
			 "exact count and IP; ~0.5 us per hit on a 5-byte nop, ~10 us on other "
			 "instructions (single-stepped)");
}

struct phdr_search {
	uint64_t addr;
	bool found;
	uint64_t offset;
	char path[PATH_MAX];
};

static int find_segment(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	struct phdr_search *s = data;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD)
			continue;
		uint64_t start = info->dlpi_addr + ph->p_vaddr;
		if (s->addr < start || s->addr >= start + ph->p_memsz)
			continue;
		if (s->addr - start >= ph->p_filesz)
			return 0; /* in .bss: no file bytes to probe */
		s->offset = s->addr - start + ph->p_offset;
		if (info->dlpi_name && info->dlpi_name[0]) {
			snprintf(s->path, sizeof s->path, "%s", info->dlpi_name);
		} else {
			/* The kernel resolves this magic link to our own executable's inode, even
			 * when the file was replaced (rebuilt) since we started. */
			snprintf(s->path, sizeof s->path, "/proc/self/exe");
		}
		s->found = true;
		return 1;
	}
	return 0;
}

int pb_uprobe_locate(uint64_t addr, char *path, size_t path_len, uint64_t *offset,
		     struct pb_error *err)
{
	struct phdr_search s = {.addr = addr};
	dl_iterate_phdr(find_segment, &s);
	if (!s.found)
		return pb_fail(err, PB_EXIT_USAGE, 0,
			       "address 0x%llx is not in the file-backed part of any loaded object",
			       (unsigned long long)addr);
	if (strlen(s.path) >= path_len)
		return pb_fail(err, PB_EXIT_USAGE, 0, "path of 0x%llx is too long",
			       (unsigned long long)addr);
	strcpy(path, s.path);
	*offset = s.offset;
	return 0;
}

/* perf_event_open copies the path when the event is opened; the session opens right after
 * attr(), so one buffer per thread is enough. */
static _Thread_local char located_path[PATH_MAX];

static int uprobe_attr(const struct pb_machine *m, const struct pb_spec *spec,
		       const struct pb_target *target, uint64_t period, struct perf_event_attr *attr,
		       struct pb_error *err)
{
	(void)period; /* no limit of its own; pb_spec_attr writes sample_period */
	const struct pb_pmu *pmu = pb_machine_pmu(m, "uprobe");
	if (!pmu)
		return pb_fail(err, PB_EXIT_UNAVAILABLE, 0, "%s: no uprobe PMU on this kernel",
			       spec->text);
	if (!target || !target->code_addr)
		return pb_fail(err, PB_EXIT_USAGE, 0,
			       "%s needs an instruction address; the workload declares none",
			       spec->text);
	uint64_t offset;
	if (target->code_path) {
		/* The caller names the file: code_addr is already a file offset. */
		snprintf(located_path, sizeof located_path, "%s", target->code_path);
		offset = target->code_addr;
	} else if (pb_uprobe_locate(target->code_addr, located_path, sizeof located_path, &offset,
				    err)) {
		return -1;
	}
	attr->type = (uint32_t)pmu->type;
	attr->config = spec->options & 1; /* retprobe bit (format/retprobe = config:0) */
	attr->uprobe_path = (uint64_t)(uintptr_t)located_path;
	attr->probe_offset = offset;
	return 0;
}

/* The self-test probes a one-instruction function of this binary: N calls, N hits. */
#if defined(__x86_64__) || defined(__aarch64__) || defined(__riscv)
__asm__(".text\n"
	".globl pb_uprobe_self_test_site\n"
	".type pb_uprobe_self_test_site, %function\n"
	"pb_uprobe_self_test_site:\n"
	"	nop\n"
	"	ret\n"
	".size pb_uprobe_self_test_site, . - pb_uprobe_self_test_site\n");
#endif
void pb_uprobe_self_test_site(void);

static void call_site(void *arg, unsigned n)
{
	void (*volatile fn)(void) = arg;
	for (unsigned i = 0; i < n; i++)
		fn();
}

static void uprobe_self_test(const struct pb_machine *m, const struct pb_spec *spec,
			     struct pb_self_test *out)
{
	struct pb_spec plain = {.facility = &pb_facility_uprobe};
	snprintf(plain.text, sizeof plain.text, "uprobe");
	struct pb_target target = {.code_addr = (uint64_t)(uintptr_t)pb_uprobe_self_test_site};
	struct pb_selftest_run run = {.target = &target, .loop = call_site,
				      .arg = (void *)pb_uprobe_self_test_site, .n = 16,
				      .expected = 16, .what = "calls", .accepted = "uprobes"};
	pb_selftest_count(m, spec ? spec : &plain, &run, out);
	/* measured with a signal per sample: counted with them too */
	pb_selftest_count_delivered(m, spec ? spec : &plain, &run, spec, out);
}

/* A uprobe counts the executions of the label it sits on; a return probe (spec options) the
 * returns of its function, which the labels do not declare. */
static const char *uprobe_declare(const struct pb_spec *spec, const struct pb_truth *truth,
				  const struct pb_label_truth *label, uint64_t iterations,
				  uint64_t *events)
{
	(void)truth;
	if (!label || spec->options)
		return "count";
	*events = label->per_iteration * iterations + label->once;
	return "declared";
}

/* What perf_event_open answers for an instruction the kernel will not uprobe: x86's
 * arch_uprobe_analyze_insn gives the kernel's internal ENOTSUPP, 524 (lock-prefixed
 * instructions among others); arm64's gives EINVAL for what it can neither step out of line
 * nor simulate (svc, exclusive loads and stores); riscv's gives EINVAL for what it rejects
 * (ecall among others). */
#if defined(__aarch64__) || defined(__riscv)
#define SITE_REFUSED EINVAL
#define SITE_REFUSED_NAME "EINVAL"
#else
#define SITE_REFUSED 524
#define SITE_REFUSED_NAME "ENOTSUPP"
#endif

/* uprobe events need CAP_SYS_ADMIN whatever perf_event_paranoid says, and the kernel cannot
 * place a probe on every instruction. */
static const char *uprobe_open_refusal(int err_no)
{
	if (err_no == EACCES || err_no == EPERM)
		return "uprobe events need CAP_SYS_ADMIN: run as root or grant the capability";
	if (err_no == 524)
		return "ENOTSUPP: the kernel cannot place this probe, e.g. x86 uprobes refuse "
		       "lock-prefixed instructions";
	return NULL;
}

static const char *uprobe_site_refusal(int err_no)
{
	return err_no == SITE_REFUSED ? "the kernel refuses a uprobe here (" SITE_REFUSED_NAME ")"
				      : NULL;
}

static bool uprobe_sits_on_instruction(const struct pb_spec *spec)
{
	(void)spec;
	return true;
}

static const char *uprobe_spread(const struct pb_spec *spec, char *buf, size_t len,
				 const char **why)
{
	(void)spec, (void)buf, (void)len;
	*why = "a uprobe samples exactly the instruction it sits on: there is no spread over "
	       "instructions (and no shadow) to measure";
	return NULL;
}

/* The class of the probed instruction (uprobe_site.c). A return probe's cost is its entry
 * probe's and the return trampoline's, which the label it is given does not decide. */
static const char *uprobe_event_cost_class(const struct pb_machine *m, const struct pb_spec *spec,
					   uint64_t code_addr, char *insn, size_t insn_len)
{
	if (spec->options)
		return NULL;
	struct pb_uprobe_kernel k;
	pb_uprobe_kernel_of(m ? m : pb_machine_live(), &k);
#if defined(__x86_64__)
	/* the longest x86 instruction; the workloads' labels sit well inside our text */
	return pb_uprobe_site_class(PB_ISA_X86_64, (const uint8_t *)(uintptr_t)code_addr, 15,
				    code_addr, &k, insn, insn_len);
#elif defined(__aarch64__)
	return pb_uprobe_site_class(PB_ISA_A64, (const uint8_t *)(uintptr_t)code_addr, 4,
				    code_addr, &k, insn, insn_len);
#else
	(void)code_addr, (void)insn, (void)insn_len;
	return NULL;
#endif
}

/* No can_exclude hook, on purpose: the attr takes exclude_user like any other, but a uprobe is
 * a tracepoint event, and the kernel's tracepoint match (perf_tp_event_match in
 * kernel/events/core.c) looks at exclude_kernel only (a uprobe hit is in user mode, so it
 * passes), never at exclude_user. A run that leaves the user level out still gets every hit;
 * the mode experiment counts them as samples at an excluded level, and the scorecard says "not
 * for privilege-level filtering". Refusing the spec instead would hide that. */
const struct pb_facility pb_facility_uprobe = {
	.name = "uprobe",
	.options = &uprobe_options,
	.usage = "uprobe[:ret]",
	.summary = "kernel uprobe on an instruction of the workload",
	.needs = "uprobe PMU (Linux >= 4.17) and CAP_SYS_ADMIN",
	.ip_kind = PB_IP_EXACT,
	.exact = true,
	.default_period = 1,
	.min_period = 1,
	.parse = uprobe_parse,
	.availability = uprobe_availability,
	.attr = uprobe_attr,
	.self_test = uprobe_self_test,
	.suite_spec = "uprobe",
	.traps_every_event = true,
	.needs_address = true,
	.multi_events = 4,
	.periods = &pb_exact_periods,
	.declare = uprobe_declare,
	.sits_on_instruction = uprobe_sits_on_instruction,
	.open_refusal = uprobe_open_refusal,
	.site_refusal = uprobe_site_refusal,
	.event_cost_class = uprobe_event_cost_class,
	.spread_spec = uprobe_spread,
};
