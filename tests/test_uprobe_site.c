/* The class of a uprobe's site (emulated, single-stepped, optimized, refused) on constructed
 * x86-64 byte sequences and A64 words, as Linux 6.18 treats them; the sites of the cost and
 * prediction workloads through the facility's hook; and the rule that a cost per event is
 * only used for a target site of its own class. */
#include "check.h"
#include "experiments/predict.h"
#include "facilities/facility.h"
#include "facilities/uprobe.h"
#include "workloads/workload.h"

#include <string.h>

static const struct pb_uprobe_kernel k618 = {.nop5_optimized = true, .a64_nop_simulated = true};
static const struct pb_uprobe_kernel k612 = {0};

static const char *x86(const uint8_t *code, size_t len, uint64_t addr,
		       const struct pb_uprobe_kernel *k, char *insn, size_t insn_len)
{
	const char *c = pb_uprobe_site_class(PB_ISA_X86_64, code, len, addr, k, insn, insn_len);
	return c ? c : "(no decoder)";
}

static void test_x86(void)
{
	char insn[96];
	const uint64_t at = 0x401000;
	static const uint8_t jne8[] = {0x75, 0xfe}, jne32[] = {0x0f, 0x85, 0, 0, 0, 0},
			     call[] = {0xe8, 0, 0, 0, 0}, jmp8[] = {0xeb, 0x00}, ret[] = {0xc3},
			     nop5[] = {0x0f, 0x1f, 0x44, 0x00, 0x00}, nop1[] = {0x90},
			     pause[] = {0xf3, 0x90}, load[] = {0x48, 0x8b, 0x07},
			     lock_add[] = {0xf0, 0x01, 0x07}, add_imm[] = {0x48, 0x83, 0xc0, 0x01},
			     jmp_r9[] = {0x41, 0xff, 0xe1}, push_rbp[] = {0x55},
			     push_r12[] = {0x41, 0x54}, push_ax[] = {0x66, 0x50}, int3[] = {0xcc},
			     call16[] = {0x66, 0xe8, 0, 0}, cs_load[] = {0x2e, 0x48, 0x8b, 0x07},
			     mov_ss[] = {0x8e, 0xd0}, syscall[] = {0x0f, 0x05};
	/* branches: emulated */
	CHECK(!strcmp(x86(jne8, sizeof jne8, at, &k618, insn, sizeof insn), PB_SITE_EMULATED));
	CHECK_STR_CONTAINS(insn, "jne");
	CHECK(!strcmp(x86(jne32, sizeof jne32, at, &k618, insn, sizeof insn), PB_SITE_EMULATED));
	CHECK(!strcmp(x86(call, sizeof call, at, &k618, insn, sizeof insn), PB_SITE_EMULATED));
	CHECK_STR_CONTAINS(insn, "call");
	CHECK(!strcmp(x86(jmp8, sizeof jmp8, at, &k618, insn, sizeof insn), PB_SITE_EMULATED));
	/* ret is not among the emulated branches: single-stepped (with no ip fix-up) */
	CHECK(!strcmp(x86(ret, sizeof ret, at, &k618, insn, sizeof insn),
		      PB_SITE_SINGLE_STEPPED));
	CHECK_STR_CONTAINS(insn, "ret");
	/* a 5-byte nop: optimized into a call from 6.18 on, unless it crosses a page; emulated
	 * (a jump to the next instruction) before */
	CHECK(!strcmp(x86(nop5, sizeof nop5, at, &k618, insn, sizeof insn), PB_SITE_OPTIMIZED));
	CHECK_STR_CONTAINS(insn, "nop");
	CHECK(!strcmp(x86(nop5, sizeof nop5, 0x401ffd, &k618, insn, sizeof insn),
		      PB_SITE_EMULATED));
	CHECK(!strcmp(x86(nop5, sizeof nop5, at, &k612, insn, sizeof insn), PB_SITE_EMULATED));
	CHECK(!strcmp(x86(nop1, sizeof nop1, at, &k618, insn, sizeof insn), PB_SITE_EMULATED));
	CHECK(!strcmp(x86(pause, sizeof pause, at, &k618, insn, sizeof insn), PB_SITE_EMULATED));
	/* push of a register: emulated; with an operand-size prefix: stepped */
	CHECK(!strcmp(x86(push_rbp, 1, at, &k618, insn, sizeof insn), PB_SITE_EMULATED));
	CHECK(!strcmp(x86(push_r12, 2, at, &k618, insn, sizeof insn), PB_SITE_EMULATED));
	CHECK(!strcmp(x86(push_ax, 2, at, &k618, insn, sizeof insn), PB_SITE_SINGLE_STEPPED));
	/* loads, arithmetic, indirect jumps: single-stepped */
	CHECK(!strcmp(x86(load, sizeof load, at, &k618, insn, sizeof insn),
		      PB_SITE_SINGLE_STEPPED));
	CHECK_STR_CONTAINS(insn, "mov rax, qword ptr [rdi]");
	CHECK(!strcmp(x86(add_imm, sizeof add_imm, at, &k618, insn, sizeof insn),
		      PB_SITE_SINGLE_STEPPED));
	CHECK(!strcmp(x86(jmp_r9, sizeof jmp_r9, at, &k618, insn, sizeof insn),
		      PB_SITE_SINGLE_STEPPED));
	CHECK(!strcmp(x86(syscall, sizeof syscall, at, &k618, insn, sizeof insn),
		      PB_SITE_SINGLE_STEPPED));
	/* refused: a lock prefix, a segment override, int3, mov to ss, a 16-bit call */
	CHECK(!strcmp(x86(lock_add, sizeof lock_add, at, &k618, insn, sizeof insn),
		      PB_SITE_REFUSED));
	CHECK_STR_CONTAINS(insn, "lock add");
	CHECK(!strcmp(x86(cs_load, sizeof cs_load, at, &k618, insn, sizeof insn),
		      PB_SITE_REFUSED));
	CHECK(!strcmp(x86(int3, sizeof int3, at, &k618, insn, sizeof insn), PB_SITE_REFUSED));
	CHECK(!strcmp(x86(mov_ss, sizeof mov_ss, at, &k618, insn, sizeof insn),
		      PB_SITE_REFUSED));
	CHECK(!strcmp(x86(call16, sizeof call16, at, &k618, insn, sizeof insn),
		      PB_SITE_REFUSED));
	/* bytes that are no instruction: refused, no text */
	static const uint8_t junk[] = {0x0f, 0xff};
	CHECK(!strcmp(x86(junk, 1, at, &k618, insn, sizeof insn), PB_SITE_REFUSED));
	CHECK(insn[0] == 0);
}

static const char *a64(uint32_t w, const struct pb_uprobe_kernel *k, char *insn, size_t len)
{
	uint8_t b[4] = {(uint8_t)w, (uint8_t)(w >> 8), (uint8_t)(w >> 16), (uint8_t)(w >> 24)};
	const char *c = pb_uprobe_site_class(PB_ISA_A64, b, 4, 0x400000, k, insn, len);
	return c ? c : "(no decoder)";
}

static void test_a64(void)
{
	char insn[96];
	/* simulated by the kernel: branches, adr/adrp, nop (6.13 on) */
	CHECK(!strcmp(a64(0x14000002, &k618, insn, sizeof insn), PB_SITE_EMULATED)); /* b */
	CHECK_STR_CONTAINS(insn, "b ");
	CHECK(!strcmp(a64(0x94000002, &k618, insn, sizeof insn), PB_SITE_EMULATED)); /* bl */
	CHECK_STR_CONTAINS(insn, "bl");
	CHECK(!strcmp(a64(0x54000041, &k618, insn, sizeof insn), PB_SITE_EMULATED)); /* b.ne */
	CHECK_STR_CONTAINS(insn, "ne");
	CHECK(!strcmp(a64(0xb4000040, &k618, insn, sizeof insn), PB_SITE_EMULATED)); /* cbz */
	CHECK_STR_CONTAINS(insn, "cbz");
	CHECK(!strcmp(a64(0x90000000, &k618, insn, sizeof insn), PB_SITE_EMULATED)); /* adrp */
	CHECK_STR_CONTAINS(insn, "adrp");
	CHECK(!strcmp(a64(0xd65f03c0, &k618, insn, sizeof insn), PB_SITE_EMULATED)); /* ret */
	CHECK(!strcmp(a64(0xd61f0120, &k618, insn, sizeof insn), PB_SITE_EMULATED)); /* br */
	CHECK(!strcmp(a64(0xd503201f, &k618, insn, sizeof insn), PB_SITE_EMULATED)); /* nop */
	CHECK(!strcmp(a64(0xd503201f, &k612, insn, sizeof insn), PB_SITE_SINGLE_STEPPED));
	/* single-stepped: a plain load, an add, a pac landing pad */
	CHECK(!strcmp(a64(0xf9400020, &k618, insn, sizeof insn), PB_SITE_SINGLE_STEPPED));
	CHECK_STR_CONTAINS(insn, "ldr x0, [x1]");
	CHECK(!strcmp(a64(0x91000529, &k618, insn, sizeof insn), PB_SITE_SINGLE_STEPPED));
	CHECK_STR_CONTAINS(insn, "add");
	CHECK(!strcmp(a64(0xd503233f, &k618, insn, sizeof insn), PB_SITE_SINGLE_STEPPED));
	/* refused: a literal load (no longer simulated for uprobes), an exclusive load, svc */
	CHECK(!strcmp(a64(0x58000040, &k618, insn, sizeof insn), PB_SITE_REFUSED));
	CHECK_STR_CONTAINS(insn, "ldr x0");
	CHECK(!strcmp(a64(0xc85f7c20, &k618, insn, sizeof insn), PB_SITE_REFUSED));
	CHECK(!strcmp(a64(0xd4000001, &k618, insn, sizeof insn), PB_SITE_REFUSED));
}

/* The live workloads' labels through the facility's hook: what the cost experiment and its
 * prediction compare. */
static void test_workload_sites(void)
{
	struct pb_spec spec;
	CHECK(pb_spec_parse("uprobe", &spec, NULL) == 0);
	struct pb_machine m = {.kernel_major = 6, .kernel_minor = 18};
	struct pb_workload_choice busy, acc;
	CHECK(pb_workload_parse("busy", &busy, NULL) == 0);
	CHECK(pb_workload_parse("accuracy:ratio=20", &acc, NULL) == 0);
	static struct pb_truth tb, ta;
	CHECK(pb_workload_truth(&busy, 10, &tb, NULL) == 0);
	CHECK(pb_workload_truth(&acc, 10, &ta, NULL) == 0);
	char insn[96];
	int back = pb_truth_label(&tb, "pb_wl_busy_back"), add = pb_truth_label(&tb, "pb_wl_busy_add");
	int jump = pb_truth_label(&ta, "pb_wl_accuracy_jump");
	CHECK(back >= 0 && add >= 0 && jump >= 0);
	if (back < 0 || add < 0 || jump < 0)
		return;
	const char *c = pb_spec_event_cost_class(&m, &spec, tb.labels[back].addr, insn, sizeof insn);
	CHECK(c && !strcmp(c, PB_SITE_EMULATED));
	c = pb_spec_event_cost_class(&m, &spec, tb.labels[add].addr, insn, sizeof insn);
	CHECK(c && !strcmp(c, PB_SITE_SINGLE_STEPPED));
	c = pb_spec_event_cost_class(&m, &spec, ta.labels[jump].addr, insn, sizeof insn);
#if defined(__x86_64__)
	CHECK(c && !strcmp(c, PB_SITE_SINGLE_STEPPED)); /* jmp *%r9 */
#else
	CHECK(c && !strcmp(c, PB_SITE_EMULATED));        /* br x9 */
#endif
	/* a return probe, and a facility without the hook: no class */
	struct pb_spec ret;
	CHECK(pb_spec_parse("uprobe:ret", &ret, NULL) == 0);
	CHECK(pb_spec_event_cost_class(&m, &ret, tb.labels[back].addr, insn, sizeof insn) == NULL);
	struct pb_spec timer;
	CHECK(pb_spec_parse("timer:cpu-clock", &timer, NULL) == 0);
	CHECK(pb_spec_event_cost_class(&m, &timer, tb.labels[back].addr, insn, sizeof insn) ==
	      NULL);
}

static void test_pick(void)
{
	char why[480];
	const struct pb_site_cost emulated_only[] = {
		{PB_SITE_EMULATED, "pb_wl_busy_back", "jne 0x1000", true, true, true, false}};
	/* a single-stepped target and only an emulated fit: refused, and the note says why */
	CHECK(pb_site_cost_pick(emulated_only, 1, PB_SITE_SINGLE_STEPPED, "pb_wl_accuracy_jump",
				"jmp r9", why, sizeof why) == -1);
	CHECK_STR_CONTAINS(why, "not predicted: the per-event cost was measured on an emulated "
				"(pb_wl_busy_back: jne 0x1000) site; the target's site "
				"pb_wl_accuracy_jump (jmp r9) is single-stepped");
	/* an emulated target: the emulated fit */
	CHECK(pb_site_cost_pick(emulated_only, 1, PB_SITE_EMULATED, "x", "jne", why,
				sizeof why) == 0);
	CHECK(why[0] == 0);
	/* both classes measured: the matching one, whichever comes first */
	const struct pb_site_cost both[] = {
		{PB_SITE_EMULATED, "pb_wl_busy_back", "jne", true, true, true, false},
		{PB_SITE_SINGLE_STEPPED, "pb_wl_busy_add", "add rax, 1", true, true, true, false}};
	CHECK(pb_site_cost_pick(both, 2, PB_SITE_SINGLE_STEPPED, "t", "jmp r9", why,
				sizeof why) == 1);
	CHECK(pb_site_cost_pick(both, 2, PB_SITE_EMULATED, "t", "jne", why, sizeof why) == 0);
	/* an optimized target matches neither */
	CHECK(pb_site_cost_pick(both, 2, PB_SITE_OPTIMIZED, "t", "nop", why, sizeof why) == -1);
	CHECK_STR_CONTAINS(why, "an emulated (pb_wl_busy_back: jne) and a single-stepped "
				"(pb_wl_busy_add: add rax, 1) site");
	/* a target without a class (a facility whose cost is its own): the first fit */
	CHECK(pb_site_cost_pick(both, 2, NULL, "t", "", why, sizeof why) == 0);
	CHECK(pb_site_cost_pick(both, 0, NULL, "t", "", why, sizeof why) == -1);

	/* the per-sample cost: the chosen fit's when it resolved; the first site's when only
	 * the chosen (other) site's per-event cost resolved; none otherwise */
	struct pb_site_cost f[2] = {
		{PB_SITE_EMULATED, "back", "jne", .resolved = true, .event_resolved = true,
		 .per_event = true},
		{PB_SITE_SINGLE_STEPPED, "add", "add", .resolved = true, .event_resolved = true,
		 .per_event = true}};
	/* issue 21: a resolved per-sample cost beside a per-event cost that did not resolve
	 * (bp:w's -0.099 ± 0.144 ns/event) predicts nothing */
	f[0].event_resolved = false;
	CHECK(pb_site_cost_sample_source(f, 2, 0) == -1);
	f[0].event_resolved = true;
	CHECK(pb_site_cost_sample_source(f, 2, 1) == 1);
	CHECK(pb_site_cost_sample_source(f, 2, 0) == 0);
	f[1].resolved = false;
	CHECK(pb_site_cost_sample_source(f, 2, 1) == 0);
	f[1].event_resolved = false;
	CHECK(pb_site_cost_sample_source(f, 2, 1) == -1);
	f[1].event_resolved = true;
	f[0].resolved = false;
	CHECK(pb_site_cost_sample_source(f, 2, 1) == -1);
	CHECK(pb_site_cost_sample_source(f, 2, 0) == -1); /* the first site borrows from none */
	/* a per-sample cost only bounded (its CI's upper end within 5 % of the per-event cost):
	 * the site's own fit, the prediction leaving the sample out; not without the per-event
	 * cost, and a resolved first site's per-sample cost comes first */
	f[0].sample_bounded = true;
	CHECK(pb_site_cost_sample_source(f, 2, 0) == 0);
	f[0].event_resolved = false;
	CHECK(pb_site_cost_sample_source(f, 2, 0) == -1);
	f[0].event_resolved = true;
	f[0].resolved = true;
	f[1].sample_bounded = true;
	CHECK(pb_site_cost_sample_source(f, 2, 1) == 0);
	f[0].resolved = false;
	CHECK(pb_site_cost_sample_source(f, 2, 1) == 1);
	CHECK(pb_site_cost_sample_source(f, 2, -1) == -1);
	CHECK(pb_site_cost_sample_source(f, 2, 2) == -1);
}

int main(void)
{
	test_x86();
	test_a64();
	test_workload_sites();
	test_pick();
	return pb_check_done("uprobe_site");
}
