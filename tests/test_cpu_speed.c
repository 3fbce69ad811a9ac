/* The CPUs' speed over a suite: the rule that calls a probe slower (more than 10 % over the
 * fastest, and no repetition overlapping it), the sentence, and the real probe on every CPU,
 * with one CPU refused. */
#include "check.h"
#include "fake_kernel.h"
#include "runner/cpu_speed.h"
#include "util/rng.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A probe of cpu at at_s whose five loops took base ns, spread by ±spread ns. */
static void add(struct pb_speed_watch *w, unsigned cpu, double at_s, double base, double spread)
{
	struct pb_speed_probe *p = &w->probe[w->n++];
	memset(p, 0, sizeof *p);
	p->cpu = cpu;
	p->at_s = at_s;
	p->pinned = true;
	static const double offsets[PB_SPEED_REPEATS] = {-1, -0.5, 0, 0.5, 1};
	for (unsigned r = 0; r < PB_SPEED_REPEATS; r++)
		p->rep_ns[r] = base + offsets[r] * spread;
}

static void test_steady(void)
{
	struct pb_speed_watch w = {0};
	for (unsigned k = 0; k < 10; k++) {
		add(&w, 0, k, 500000 + 1000 * (k % 3), 5000);
		add(&w, 1, k, 502000, 5000);
	}
	struct pb_speed_summary s;
	pb_speed_summarize(&w, &s);
	CHECK(s.valid);
	CHECK_EQ_U64(s.probes, 20);
	CHECK_EQ_U64(s.cpus, 2);
	CHECK_EQ_U64(s.slower, 0);
	CHECK(s.slowest_ratio > 1.003 && s.slowest_ratio < 1.005);
	char text[512];
	pb_speed_text(&s, text, sizeof text);
	CHECK_STR_CONTAINS(text, "timed 20 times on 2 CPUs, took at most 1.00 times");
	CHECK_STR_CONTAINS(text, "took at most 1.00 times its fastest time: no CPU ran more than "
			   "10 % slower.");

	/* a probe slow in its median, but with one loop as fast as the fastest probe's: not
	 * slower by the rule, and the sentence says why instead of calling the CPUs steady */
	struct pb_speed_probe *mixed = &w.probe[w.n];
	add(&w, 1, 30, 1080000, 0);
	mixed->rep_ns[0] = 490000;
	pb_speed_summarize(&w, &s);
	CHECK_EQ_U64(s.slower, 0);
	CHECK(s.slowest_ratio > 2.14 && s.slowest_ratio < 2.17);
	pb_speed_text(&s, text, sizeof text);
	CHECK_STR_CONTAINS(text, "took up to 2.16 times its fastest time, on CPU 1 at 30 s "
			   "into the run, but one of that probe's loops ran as fast as the "
			   "fastest probe's");
	CHECK_STR_CONTAINS(text, "no CPU was seen more than 10 % slower throughout one.");
	CHECK(!strstr(text, "took at most"));
}

static void test_one_cpu_slower(void)
{
	struct pb_speed_watch w = {0};
	for (unsigned k = 0; k < 10; k++) {
		add(&w, 0, 10.0 * k, 500000, 5000);
		/* CPU 1 at 2.8 times from 30 to 60 s: the kind-B episode */
		add(&w, 1, 10.0 * k + 1, k >= 3 && k <= 6 ? 1400000 : 501000, 5000);
	}
	/* 15 % slower but overlapping the fastest's loops: noise, not a slower CPU */
	add(&w, 0, 100, 575000, 160000);
	/* 5 % slower and apart from it: apart, but under the 10 % no cost could show */
	add(&w, 0, 101, 525000, 1000);
	struct pb_speed_summary s;
	pb_speed_summarize(&w, &s);
	CHECK_EQ_U64(s.probes, 22);
	CHECK_EQ_U64(s.slower, 4);
	CHECK_EQ_U64(s.slower_cpus, 1);
	CHECK_EQ_U64(s.slowest_cpu, 1);
	CHECK(s.slowest_ratio > 2.79 && s.slowest_ratio < 2.81);
	CHECK(s.slower_from_s == 31 && s.slower_to_s == 61);
	char text[512];
	pb_speed_text(&s, text, sizeof text);
	CHECK_STR_CONTAINS(text, "up to 2.8 times its fastest time, on CPU 1 (4 of 22 probes more "
			   "than 10 % slower, from 31 to 61 s into the run)");
	CHECK_STR_CONTAINS(text, "without time counted as stolen");

	/* one slower probe has one time; two CPUs slower are counted */
	struct pb_speed_watch two = {0};
	add(&two, 0, 0, 500000, 5000);
	add(&two, 1, 0, 900000, 5000);
	add(&two, 0, 20, 800000, 5000);
	add(&two, 1, 20, 500000, 5000);
	pb_speed_summarize(&two, &s);
	CHECK_EQ_U64(s.slower, 2);
	CHECK_EQ_U64(s.slower_cpus, 2);
	pb_speed_text(&s, text, sizeof text);
	CHECK_STR_CONTAINS(text, "up to 1.8 times its fastest time, on CPU 1 (2 of 4 probes more "
			   "than 10 % slower, from 0 to 20 s into the run; 2 CPUs had slower "
			   "probes)");
	struct pb_speed_watch once = {0};
	add(&once, 0, 0, 500000, 5000);
	add(&once, 1, 7, 900000, 5000);
	pb_speed_summarize(&once, &s);
	pb_speed_text(&s, text, sizeof text);
	CHECK_STR_CONTAINS(text, "(1 of 2 probes more than 10 % slower, at 7 s into the run)");

	/* a refused CPU's probe is in no figure; one probe is too few to compare */
	struct pb_speed_watch one = {0};
	add(&one, 0, 0, 500000, 5000);
	add(&one, 1, 0, 1400000, 5000);
	one.probe[1].pinned = false;
	pb_speed_summarize(&one, &s);
	CHECK(!s.valid);
	pb_speed_text(&s, text, sizeof text);
	CHECK_EQ_U64(strlen(text), 0);
}

static double uniform(struct pb_rng *rng)
{
	return ((double)(pb_rng_next(rng) >> 11) + 0.5) / 9007199254740992.0;
}

/* One simulated loop of base µs on a kind-B guest at one speed: 1 % noise, the guest's tick
 * (every 4 ms, 45 µs each, and sometimes another close behind it), and 1 time in 100 a
 * disturbance of 50 to 500 µs. */
static double simulated_loop(struct pb_rng *rng, double base)
{
	double u1 = uniform(rng), u2 = uniform(rng);
	double t = base * (1 + 0.01 * sqrt(-2 * log(u1)) * cos(2 * acos(-1.0) * u2));
	for (double p = base / 4000; uniform(rng) < p; p *= 0.3)
		t += 45;
	if (uniform(rng) < 0.01)
		t += 50 + 450 * uniform(rng);
	return t * 1000;
}

/* The rule's two errors on simulated suites of 30 occasions on 2 CPUs: at one speed, a probe
 * counted slower (the fastest probe is the reference, which makes a chance non-overlap likelier
 * than 1 in 252, and the 10 % floor is what holds it down); with one CPU 1.3 times slower for
 * 5 occasions, the suite that names no CPU. */
static void test_rule_simulated(void)
{
	struct pb_rng rng;
	pb_rng_seed(&rng, 20261128);
	struct pb_speed_watch *w = calloc(1, sizeof *w);
	CHECK(w != NULL);
	if (!w)
		return;
	unsigned flagged = 0, missed = 0;
	const unsigned suites = 400;
	for (unsigned k = 0; k < 2 * suites; k++) {
		bool episode = k >= suites;
		w->n = 0;
		for (unsigned occasion = 0; occasion < 30; occasion++)
			for (unsigned cpu = 0; cpu < 2; cpu++) {
				struct pb_speed_probe *p = &w->probe[w->n++];
				*p = (struct pb_speed_probe){.cpu = cpu, .at_s = occasion,
							     .pinned = true};
				double base = episode && cpu == 1 && occasion >= 10 && occasion < 15
						      ? 1.3 * 560 : 560;
				for (unsigned r = 0; r < PB_SPEED_REPEATS; r++)
					p->rep_ns[r] = simulated_loop(&rng, base);
			}
		struct pb_speed_summary s;
		pb_speed_summarize(w, &s);
		if (!episode)
			flagged += s.slower > 0;
		else
			missed += s.slower == 0 || s.slowest_cpu != 1;
	}
	printf("simulated suites at one speed with a probe counted slower: %u of %u; with CPU 1 "
	       "1.3 times slower for 5 of 30 occasions, not named: %u of %u\n", flagged, suites,
	       missed, suites);
	/* at most 1 suite in 40 at one speed (16 of 400), and the slower CPU named in all but
	 * 1 in 100 */
	CHECK(flagged <= suites / 25);
	CHECK(missed <= suites / 100);
	free(w);
}

/* The real loop on every CPU: each probe ran pinned, five loops of some time each. Its speed is
 * the machine's, and no check here depends on it. */
static void test_real_probe(void)
{
	struct pb_speed_watch *w = calloc(1, sizeof *w);
	CHECK(w != NULL);
	if (!w)
		return;
	pb_speed_watch_start(w);
	pb_speed_watch_probe(w);
	pb_speed_watch_probe(w);
	cpu_set_t allowed;
	CHECK(sched_getaffinity(0, sizeof allowed, &allowed) == 0);
	unsigned ncpus = (unsigned)CPU_COUNT(&allowed);
	CHECK_EQ_U64(w->n, 2 * ncpus);
	for (unsigned i = 0; i < w->n; i++) {
		CHECK(w->probe[i].pinned);
		CHECK(CPU_ISSET(w->probe[i].cpu, &allowed));
		for (unsigned r = 0; r < PB_SPEED_REPEATS; r++)
			CHECK(w->probe[i].rep_ns[r] > 0);
	}
	struct pb_speed_summary s;
	pb_speed_summarize(w, &s);
	CHECK(s.valid);
	CHECK_EQ_U64(s.probes, 2 * ncpus);
	CHECK(s.slowest_ratio >= 1);
	/* the thread's CPUs are given back */
	cpu_set_t after;
	CHECK(sched_getaffinity(0, sizeof after, &after) == 0);
	CHECK(CPU_EQUAL(&after, &allowed));

	/* a CPU the kernel refuses: its probe is marked and counted in no figure */
	fake_kernel_install();
	fake_kernel_refuse_cpu(0, EINVAL);
	pb_speed_watch_start(w);
	pb_speed_watch_probe(w);
	fake_kernel_uninstall();
	CHECK_EQ_U64(w->n, ncpus);
	unsigned refused = 0;
	for (unsigned i = 0; i < w->n; i++) {
		refused += !w->probe[i].pinned;
		/* and its loops, which would have timed another CPU, were not run */
		if (!w->probe[i].pinned)
			CHECK(w->probe[i].rep_ns[0] == 0);
	}
	CHECK_EQ_U64(refused, CPU_ISSET(0, &allowed) ? 1 : 0);
	pb_speed_summarize(w, &s);
	CHECK_EQ_U64(s.probes, ncpus - refused);
	free(w);
}

int main(void)
{
	test_steady();
	test_one_cpu_slower();
	test_rule_simulated();
	test_real_probe();
	return pb_check_done("cpu_speed");
}
