/* `verify` end to end on this machine: every workload's declaration against uprobes,
 * breakpoints and page-fault counts on two threads, and against callgrind; then declarations
 * edited by one count, which each oracle must catch, naming the instruction. */
#include "check.h"

#include "analysis/callgrind.h"
#include "facilities/facility.h"
#include "facilities/machine.h"
#include "runner/verify.h"

#include <stdlib.h>
#include <unistd.h>

#define ITERATIONS 600

/* Callgrind cannot run a sanitizer build; those builds check the other oracles only. */
static bool callgrind_ok;
/* Breakpoints the kernel accepts may never fire: verify must then leave them out, say so, and
 * judge with the oracles that passed their self-test. */
static bool bp_ok;
static char bp_why[512];
/* The PMU's instruction count is an oracle only where the hw facility passes its self-test
 * (none of our x86 VMs has a PMU: there verify must name it among the oracles not run). */
static bool hw_ok;
static char hw_why[512];

static void require_oracles(void)
{
	struct pb_spec spec;
	struct pb_error err = {0};
	struct pb_availability av;
	if (pb_spec_parse("uprobe", &spec, &err))
		pb_skip("no uprobe facility: %s", err.msg);
	pb_facility_check(pb_machine_live(), &spec, NULL, &av, NULL);
	if (!av.available)
		pb_skip("uprobes cannot run here: %s", av.reason);
	bp_ok = pb_test_facility_works("bp:w", bp_why, sizeof bp_why);
	hw_ok = pb_test_facility_works("hw:instructions", hw_why, sizeof hw_why);
	if (!hw_ok)
		printf("test_verify: the hw:instructions oracle cannot run here: %s\n", hw_why);
	char why[256];
	if (!pb_callgrind_available(why, sizeof why))
		pb_skip("callgrind cannot run here: %s", why);
	callgrind_ok = pb_verify_callgrind_possible(why, sizeof why);
	if (!callgrind_ok)
		printf("test_verify: the callgrind oracle is not checked in this build: %s\n", why);
	const char *bin = getenv("PB_BIN");
	if (!bin || access(bin, X_OK))
		pb_skip("PB_BIN does not name the pesbench binary callgrind must run (run via ctest)");
}

static struct pb_verify_options options(void)
{
	return (struct pb_verify_options){.iterations = ITERATIONS, .threads = 2, .label_hits = true,
					  .data_watch = true, .page_faults = true, .callgrind = true, .instructions = true,
					  .self_exe = getenv("PB_BIN")};
}

static size_t rows_of(const struct pb_verify_report *rep, const char *oracle)
{
	size_t n = 0;
	for (size_t i = 0; i < rep->n; i++)
		n += !strcmp(rep->rows[i].oracle, oracle) && !rep->rows[i].refused;
	return n;
}

/* Every workload with every choice parameter value (the default set), all oracles. */
static void test_all_pass(void)
{
	static struct pb_workload_choice choices[128];
	static struct pb_truth truths[128];
	size_t n = pb_verify_default_choices(choices, 128);
	CHECK(n >= 20);
	struct pb_verify_options o = options();
	struct pb_verify_report rep = {0};
	struct pb_error err = {0};
	for (size_t k = 0; k < n; k++) {
		struct pb_instance in;
		CHECK(pb_instance_init(&in, &choices[k], o.iterations, o.threads, &err) == 0);
		truths[k] = in.truth;
		CHECK(pb_verify_instance(&in, &o, &rep, &err) == 0);
		pb_instance_free(&in);
	}
	o.threads = 1; /* callgrind runs threads one after another; one is enough */
	CHECK(pb_verify_callgrind(choices, truths, n, &o, &rep, &err) == 0);
	if (err.msg[0])
		fprintf(stderr, "%s\n", err.msg);
	if (rep.mismatches)
		pb_verify_print(&rep, stderr);
	CHECK_EQ_U64(rep.mismatches, 0);
	CHECK(rows_of(&rep, "uprobe") > 100);
	if (bp_ok) {
		CHECK(rows_of(&rep, "bp:w") >= 10);
		CHECK(rows_of(&rep, "bp:rw") >= 10);
	} else {
		/* no breakpoint row, and the report names the oracle it could not use */
		CHECK_EQ_U64(rows_of(&rep, "bp:w"), 0);
		CHECK_EQ_U64(rows_of(&rep, "bp:rw"), 0);
		CHECK_STR_CONTAINS(rep.skipped, "bp:w: self-test");
		pb_skip_checks(2, "%s", bp_why);
	}
	/* mode:kernel=fault and mode:kernel=touch: all faults, and those in user mode */
	CHECK(rows_of(&rep, "faults") == 4);
	if (hw_ok) {
		CHECK_EQ_U64(rows_of(&rep, "hw:instructions"), n);
	} else {
		CHECK_EQ_U64(rows_of(&rep, "hw:instructions"), 0);
		CHECK_STR_CONTAINS(rep.skipped, "hw:instructions: ");
	}
	if (callgrind_ok) {
		CHECK(rows_of(&rep, "callgrind") > 100);
		if (bp_ok && hw_ok)
			CHECK(rep.skipped[0] == '\0'); /* every oracle ran */
	} else {
		CHECK_STR_CONTAINS(rep.skipped, "callgrind: this pesbench is built with");
	}
	/* The labels the kernel refuses to probe are exactly the locked ones. */
	for (size_t i = 0; i < rep.n; i++)
		if (rep.rows[i].refused)
			CHECK_STR_CONTAINS(rep.rows[i].what, "lock");
	pb_verify_report_free(&rep);
}

static struct pb_instance mix_instance(void)
{
	struct pb_workload_choice c;
	struct pb_error err = {0};
	struct pb_instance in;
	CHECK(pb_workload_parse("mix", &c, &err) == 0);
	CHECK(pb_instance_init(&in, &c, ITERATIONS, 2, &err) == 0);
	return in;
}

static void test_wrong_label_count(void)
{
	struct pb_instance in = mix_instance();
	int load = pb_truth_label(&in.truth, "pb_wl_mix_load");
	CHECK(load >= 0);
	in.truth.labels[load].per_iteration = 2; /* the lie: two executions per iteration */
	struct pb_verify_options o = options();
	o.data_watch = false;
	struct pb_verify_report rep = {0};
	struct pb_error err = {0};
	CHECK(pb_verify_instance(&in, &o, &rep, &err) == 0);
	CHECK_EQ_U64(rep.mismatches, 1);
	pb_verify_mismatch_error(&rep, &err);
	CHECK_EQ_U64(err.code, PB_EXIT_MISMATCH);
	CHECK_STR_CONTAINS(err.msg, "uprobe counted 600 on pb_wl_mix_load");
	CHECK_STR_CONTAINS(err.msg, "but 1200 were declared");

	/* The same lie before callgrind. */
	struct pb_verify_report rep2 = {0};
	o.threads = 1;
	if (callgrind_ok) {
		CHECK(pb_verify_callgrind(&in.choice, &in.truth, 1, &o, &rep2, &err) == 0);
		CHECK_EQ_U64(rep2.mismatches, 1);
		pb_verify_mismatch_error(&rep2, &err);
		CHECK_STR_CONTAINS(err.msg, "callgrind counted 600 on pb_wl_mix_load");
	}
	pb_verify_report_free(&rep);
	pb_verify_report_free(&rep2);
	pb_instance_free(&in);
}

static void test_wrong_totals(void)
{
	struct pb_instance in = mix_instance();
	struct pb_verify_options o = options();
	o.label_hits = false;
	o.threads = 1;
	in.truth.instructions += 1;    /* one instruction too many per iteration */
	in.truth.watch_writes -= 1;    /* one store to the watched word too few */
	struct pb_verify_report rep = {0};
	struct pb_error err = {0};
	CHECK(pb_verify_instance(&in, &o, &rep, &err) == 0);
	CHECK(pb_verify_callgrind(&in.choice, &in.truth, 1, &o, &rep, &err) == 0);
	/* A lie only an untrusted oracle could see is not called a lie. */
	CHECK_EQ_U64(rep.mismatches, (callgrind_ok ? 1 : 0) + (bp_ok ? 1 : 0) + (hw_ok ? 1 : 0));
	pb_verify_mismatch_error(&rep, &err);
	if (bp_ok)
		CHECK_STR_CONTAINS(err.msg, "bp:w counted 600 on the word the loop stores to");
	else
		pb_skip_checks(1, "%s", bp_why);
	if (callgrind_ok && bp_ok)
		CHECK_STR_CONTAINS(err.msg, "the table lists every mismatch");
	bool instr = !callgrind_ok;
	for (size_t i = 0; i < rep.n; i++)
		if (!rep.rows[i].ok && !strcmp(rep.rows[i].oracle, "callgrind") &&
		    strstr(rep.rows[i].what, "instructions"))
			instr = rep.rows[i].declared == 12 * ITERATIONS + 1 &&
				rep.rows[i].measured == 11 * ITERATIONS + 1;
	CHECK(instr);
	pb_verify_report_free(&rep);
	pb_instance_free(&in);
}

int main(void)
{
	require_oracles();
	test_wrong_label_count();
	test_wrong_totals();
	test_all_pass();
	return pb_check_done("test_verify");
}
