/* The hw:instructions oracle of `verify` without a PMU: the arm64 guest's machine
 * (tests/fixtures/sysfs-qemu-a57) and a fake kernel whose instruction count of a run is
 * WRAPPER + iterations x instructions per iteration, as under QEMU -icount. The oracle must
 * cancel the wrapper (a run of 2N less a run of N), pass a true declaration, and catch a
 * declaration one instruction per iteration off. The uprobe oracle, on the VM's machine: an
 * instruction the kernel will not probe is a row that says so, not a mismatch nor an error. */
#include "check.h"
#include "fake_kernel.h"
#include "fixture.h"
#include "runner/verify.h"

#include <errno.h>
#include <string.h>

#define ITERATIONS 500
/* What a run costs outside the loop: never a multiple of a loop's length. */
#define WRAPPER 37

static struct pb_machine a57, vm;

struct counter {
	const struct pb_instance *in;
	uint64_t per_iteration;     /* what the constructed PMU counts per iteration */
	unsigned sessions;          /* counting sessions seen (one disable per thread each) */
	uint64_t first_extra;       /* added to the first session's counts only: a transient */
};

static void count_run(struct fake_event *ev, void *ctx)
{
	struct counter *c = ctx;
	if (ev->attr.type != PERF_TYPE_HARDWARE || ev->attr.config != PERF_COUNT_HW_INSTRUCTIONS)
		return;
	ev->count = WRAPPER + c->in->iterations * c->per_iteration;
	/* each session opens one event per thread; the first thread's event opens first */
	if (c->sessions < c->in->threads)
		ev->count += c->first_extra;
	c->sessions++;
	ev->time_enabled = ev->time_running = 1000000;
}

static struct pb_instance instance(const char *workload, unsigned threads)
{
	struct pb_workload_choice choice;
	struct pb_instance in;
	struct pb_error err = {0};
	CHECK(pb_workload_parse(workload, &choice, &err) == 0);
	CHECK(pb_instance_init(&in, &choice, ITERATIONS, threads, &err) == 0);
	return in;
}

static struct pb_verify_options hw_only(const struct pb_machine *m)
{
	return (struct pb_verify_options){.iterations = ITERATIONS, .threads = 2, .instructions = true,
					  .machine = m};
}

static const struct pb_verify_row *hw_row(const struct pb_verify_report *rep)
{
	const struct pb_verify_row *found = NULL;
	unsigned n = 0;
	for (size_t i = 0; i < rep->n; i++)
		if (!strcmp(rep->rows[i].oracle, "hw:instructions")) {
			found = &rep->rows[i];
			n++;
		}
	CHECK_EQ_U64(n, 1);
	return found;
}

/* A true declaration: the difference is N loops exactly, though each run counted the wrapper. */
static void true_declaration_passes(void)
{
	struct pb_instance in = instance("mix", 2);
	struct counter c = {.in = &in, .per_iteration = in.truth.instructions};
	fake_kernel_install();
	fake_kernel_on_disable(count_run, &c);
	struct pb_verify_options o = hw_only(&a57);
	struct pb_verify_report rep = {0};
	struct pb_error err = {0};
	CHECK(pb_verify_instance(&in, &o, &rep, &err) == 0);
	CHECK_EQ_U64(rep.mismatches, 0);
	const struct pb_verify_row *r = hw_row(&rep);
	if (r) {
		CHECK(r->ok);
		CHECK_EQ_U64(r->declared, (uint64_t)ITERATIONS * in.truth.instructions);
		CHECK_EQ_U64(r->measured, (uint64_t)ITERATIONS * in.truth.instructions);
		CHECK_EQ_U64(r->note[0], 0); /* exact on the first attempt */
	}
	/* two sessions, at N and at 2N iterations, one event per thread each: user mode only,
	 * counting */
	CHECK_EQ_U64(fake_kernel_nevents(), 4);
	for (unsigned i = 0; i < fake_kernel_nevents(); i++) {
		const struct fake_event *ev = fake_kernel_event_at(i);
		CHECK(ev->attr.exclude_kernel);
		CHECK_EQ_U64(ev->attr.sample_period, 0);
	}
	CHECK_EQ_U64(in.iterations, ITERATIONS); /* the instance is left as it was given */
	fake_kernel_uninstall();
	pb_verify_report_free(&rep);
	pb_instance_free(&in);
}

/* The declaration one instruction per iteration too many: a mismatch, measured three times,
 * naming both numbers. */
static void one_off_declaration_fails(void)
{
	struct pb_instance in = instance("mix", 2);
	struct counter c = {.in = &in, .per_iteration = in.truth.instructions};
	in.truth.instructions += 1;
	fake_kernel_install();
	fake_kernel_on_disable(count_run, &c);
	struct pb_verify_options o = hw_only(&a57);
	struct pb_verify_report rep = {0};
	struct pb_error err = {0};
	CHECK(pb_verify_instance(&in, &o, &rep, &err) == 0);
	CHECK_EQ_U64(rep.mismatches, 1);
	const struct pb_verify_row *r = hw_row(&rep);
	if (r) {
		CHECK(!r->ok);
		CHECK_EQ_U64(r->declared, (uint64_t)ITERATIONS * in.truth.instructions);
		CHECK_EQ_U64(r->measured, (uint64_t)ITERATIONS * c.per_iteration);
		CHECK_STR_CONTAINS(r->note, "wrong on run 3 of 3");
	}
	CHECK_EQ_U64(fake_kernel_nevents(), 3 * 2 * 2); /* 3 attempts x (N, 2N) x 2 threads */
	pb_verify_mismatch_error(&rep, &err);
	CHECK_EQ_U64(err.code, PB_EXIT_MISMATCH);
	char want[96];
	snprintf(want, sizeof want, "hw:instructions counted %llu",
		 (unsigned long long)ITERATIONS * c.per_iteration);
	CHECK_STR_CONTAINS(err.msg, want);
	fake_kernel_uninstall();
	pb_verify_report_free(&rep);
	pb_instance_free(&in);
}

/* One count off on the first run only (a lost event): measured again, agrees, says so. */
static void transient_is_retried(void)
{
	struct pb_instance in = instance("accuracy", 1);
	struct counter c = {.in = &in, .per_iteration = in.truth.instructions, .first_extra = 1};
	fake_kernel_install();
	fake_kernel_on_disable(count_run, &c);
	struct pb_verify_options o = hw_only(&a57);
	o.threads = 1;
	struct pb_verify_report rep = {0};
	struct pb_error err = {0};
	CHECK(pb_verify_instance(&in, &o, &rep, &err) == 0);
	CHECK_EQ_U64(rep.mismatches, 0);
	const struct pb_verify_row *r = hw_row(&rep);
	if (r) {
		CHECK(r->ok);
		/* run 1: (W + 2N i) - (W + 1 + N i) = N i - 1 */
		char want[96];
		snprintf(want, sizeof want, "exact on run 2 of 3; run 1 counted %llu",
			 (unsigned long long)ITERATIONS * in.truth.instructions - 1);
		CHECK_STR_CONTAINS(r->note, want);
	}
	fake_kernel_uninstall();
	pb_verify_report_free(&rep);
	pb_instance_free(&in);
}

/* No PMU (our x86 VMs): no row, and the report names the oracle and why. */
static void absent_pmu_is_named(void)
{
	struct pb_instance in = instance("mix", 1);
	struct counter c = {.in = &in, .per_iteration = in.truth.instructions};
	fake_kernel_install();
	fake_kernel_on_disable(count_run, &c);
	struct pb_verify_options o = hw_only(&vm);
	struct pb_verify_report rep = {0};
	struct pb_error err = {0};
	CHECK(pb_verify_instance(&in, &o, &rep, &err) == 0);
	CHECK_EQ_U64(rep.n, 0);
	CHECK_EQ_U64(fake_kernel_nevents(), 0);
	CHECK_STR_CONTAINS(rep.skipped, "hw:instructions: no hardware PMU");
	char text[4096];
	FILE *f = fmemopen(text, sizeof text, "w");
	pb_verify_print(&rep, f);
	fclose(f);
	CHECK_STR_CONTAINS(text, "not run here:\nhw:instructions: no hardware PMU");
	fake_kernel_uninstall();
	pb_verify_report_free(&rep);
	pb_instance_free(&in);
}

/* The hits a label's uprobe counts in a run, as the kernel would: the label's declaration. */
static void count_label_hits(struct fake_event *ev, void *ctx)
{
	const struct pb_instance *in = ctx;
	if (in->code_label < 0)
		return;
	const struct pb_label_truth *l = &in->truth.labels[in->code_label];
	ev->count = in->iterations * l->per_iteration + l->once;
	ev->time_enabled = ev->time_running = 1000000;
}

static const struct pb_verify_row *row_for(const struct pb_verify_report *rep, const char *what)
{
	for (size_t i = 0; i < rep->n; i++)
		if (!strcmp(rep->rows[i].what, what))
			return &rep->rows[i];
	return NULL;
}

/* What perf_event_open answers for an instruction the kernel will not uprobe (the kernel's
 * arch_uprobe_analyze_insn: x86 its internal ENOTSUPP, arm64 and riscv EINVAL). */
#if defined(__aarch64__) || defined(__riscv)
#define SITE_REFUSED EINVAL
#else
#define SITE_REFUSED 524
#endif

/* The kernel refuses a uprobe on the first label: that label's row says so and is no
 * mismatch, and the other labels are still checked. Any other refusal is an error. */
static void refused_site_is_a_row(void)
{
	struct pb_instance in = instance("mix", 1);
	CHECK(in.truth.nlabels >= 2);
	fake_kernel_install();
	fake_kernel_on_disable(count_label_hits, &in);
	fake_kernel_fail_next_open(SITE_REFUSED);
	struct pb_verify_options o = {.iterations = ITERATIONS, .threads = 1, .label_hits = true,
				      .machine = &vm};
	struct pb_verify_report rep = {0};
	struct pb_error err = {0};
	CHECK(pb_verify_instance(&in, &o, &rep, &err) == 0);
	CHECK_EQ_U64(rep.n, in.truth.nlabels);
	CHECK_EQ_U64(rep.mismatches, 0);
	const struct pb_verify_row *first = row_for(&rep, in.truth.labels[0].name);
	CHECK(first && first->refused && first->ok);
	if (first) {
		CHECK_MSG(!strcmp(first->oracle, "uprobe"), "oracle %s", first->oracle);
		CHECK_STR_CONTAINS(first->note, "the kernel refuses a uprobe here");
	}
	const struct pb_verify_row *second = row_for(&rep, in.truth.labels[1].name);
	CHECK(second && !second->refused && second->ok);
	fake_kernel_uninstall();
	pb_verify_report_free(&rep);

	/* the same open refused for another reason: an error, not a refused row */
	fake_kernel_install();
	fake_kernel_on_disable(count_label_hits, &in);
	fake_kernel_fail_next_open(EBUSY);
	rep = (struct pb_verify_report){0};
	err = (struct pb_error){0};
	CHECK(pb_verify_instance(&in, &o, &rep, &err) == -1);
	CHECK_EQ_U64(err.sys_errno, EBUSY);
	for (size_t i = 0; i < rep.n; i++)
		CHECK(!rep.rows[i].refused);
	fake_kernel_uninstall();
	pb_verify_report_free(&rep);
	pb_instance_free(&in);
}

int main(void)
{
	pb_test_fixture(&a57, "sysfs-qemu-a57");
	pb_test_fixture(&vm, "sysfs-vm");
	true_declaration_passes();
	one_off_declaration_fails();
	transient_is_retried();
	absent_pmu_is_named();
	refused_site_is_a_row();
	return pb_check_done("test_verify_hw");
}
