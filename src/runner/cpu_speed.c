#include "runner/cpu_speed.h"

#include "analysis/stats.h"
#include "sys/sys.h"
#include "util/kit.h"
#include "util/text.h"

#include <math.h>
#include <sched.h>
#include <string.h>
#include <unistd.h>

/* ~0.6 ms on the machines seen here: long enough that one interrupt in it (45 µs on kind B)
 * moves one repetition by less than a tenth, which the median of five then ignores */
#define LOOP_ITERATIONS 2000000u

/* A sum kept in memory, each add a load of the last store: the same work on every CPU and every
 * run, and the kind that slowed. On kind B (2026-11-28) this loop took 1.7 to 2.8 times as
 * long on the slower vCPU, while a chain of multiplies or of register adds and shifts took
 * the same time on both: the host's other work takes the core's store-to-load path (shared
 * between a core's two threads), not its arithmetic. xz took 1.28 times as long there. */
static uint64_t last_sum;

static double loop_ns(void)
{
	/* on the stack, as the loop that slowed had it */
	volatile uint64_t sum = 0;
	uint64_t start = pb_thread_cpu_ns();
	for (unsigned i = 0; i < LOOP_ITERATIONS; i++)
		sum += i;
	uint64_t end = pb_thread_cpu_ns();
	last_sum = sum;
	return (double)(end - start);
}

void pb_speed_watch_start(struct pb_speed_watch *w)
{
	w->n = 0;
	w->started_ns = pb_now_ns();
}

void pb_speed_watch_probe(struct pb_speed_watch *w)
{
	cpu_set_t was;
	bool restore = sched_getaffinity(0, sizeof was, &was) == 0;
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	for (long c = 0; c < online && c < CPU_SETSIZE && w->n < PB_SPEED_MAX_PROBES; c++) {
		if (restore && !CPU_ISSET((int)c, &was))
			continue;
		struct pb_speed_probe *p = &w->probe[w->n++];
		memset(p, 0, sizeof *p);
		p->cpu = (unsigned)c;
		cpu_set_t one;
		CPU_ZERO(&one);
		CPU_SET((int)c, &one);
		p->pinned = pb_sys()->sched_setaffinity(0, sizeof one, &one) == 0;
		p->at_s = (double)(pb_now_ns() - w->started_ns) / 1e9;
		/* a refused CPU's loops would time another CPU */
		for (unsigned r = 0; p->pinned && r < PB_SPEED_REPEATS; r++)
			p->rep_ns[r] = loop_ns();
	}
	if (restore)
		pb_sys()->sched_setaffinity(0, sizeof was, &was);
}

static bool counted(const struct pb_speed_probe *p)
{
	if (!p->pinned)
		return false;
	for (unsigned r = 0; r < PB_SPEED_REPEATS; r++)
		if (!(p->rep_ns[r] > 0))
			return false;
	return true;
}

static double probe_median(const struct pb_speed_probe *p)
{
	return pb_median(p->rep_ns, PB_SPEED_REPEATS);
}

static double probe_extreme(const struct pb_speed_probe *p, bool largest)
{
	double v = p->rep_ns[0];
	for (unsigned r = 1; r < PB_SPEED_REPEATS; r++)
		v = largest ? fmax(v, p->rep_ns[r]) : fmin(v, p->rep_ns[r]);
	return v;
}

void pb_speed_summarize(const struct pb_speed_watch *w, struct pb_speed_summary *out)
{
	memset(out, 0, sizeof *out);
	const struct pb_speed_probe *reference = NULL;
	bool seen[CPU_SETSIZE] = {0};
	for (unsigned i = 0; i < w->n; i++) {
		const struct pb_speed_probe *p = &w->probe[i];
		if (!counted(p))
			continue;
		out->probes++;
		if (p->cpu < CPU_SETSIZE && !seen[p->cpu]) {
			seen[p->cpu] = true;
			out->cpus++;
		}
		/* the cleanest of the fast: one disturbed loop in the reference would hide every
		 * slower probe behind it */
		if (!reference || probe_extreme(p, true) < probe_extreme(reference, true))
			reference = p;
	}
	out->valid = out->probes >= 2;
	if (!out->valid)
		return;
	double reference_ns = probe_median(reference);
	double reference_max = probe_extreme(reference, true);
	bool slower_on[CPU_SETSIZE] = {0};
	out->slowest_ratio = 1;
	out->slowest_cpu = reference->cpu;
	for (unsigned i = 0; i < w->n; i++) {
		const struct pb_speed_probe *p = &w->probe[i];
		if (!counted(p))
			continue;
		double ratio = probe_median(p) / reference_ns;
		if (ratio > out->slowest_ratio) {
			out->slowest_ratio = ratio;
			out->slowest_cpu = p->cpu;
			out->slowest_at_s = p->at_s;
		}
		if (ratio > 1 + PB_SPEED_SLOWER && probe_extreme(p, false) > reference_max) {
			if (!out->slower)
				out->slower_from_s = p->at_s;
			out->slower_to_s = p->at_s;
			out->slower++;
			if (p->cpu < CPU_SETSIZE && !slower_on[p->cpu]) {
				slower_on[p->cpu] = true;
				out->slower_cpus++;
			}
		}
	}
}

void pb_speed_text(const struct pb_speed_summary *s, char *buf, size_t len)
{
	if (!s->valid) {
		if (len)
			buf[0] = '\0';
		return;
	}
	if (!s->slower) {
		double limit_pct = 100 * PB_SPEED_SLOWER;
		pb_format(buf, len, "A fixed loop, timed %u times on %u CPU%s, ", s->probes,
			  s->cpus, s->cpus == 1 ? "" : "s");
		if (s->slowest_ratio <= 1 + PB_SPEED_SLOWER)
			pb_append(buf, len, "took at most %.2f times its fastest time: no CPU ran "
				  "more than %.0f %% slower.", s->slowest_ratio, limit_pct);
		else
			/* "at most 2.16 times ...: no CPU ran more than 10 % slower" read as a
			 * contradiction (kind B, 2026-11-28): the probe was slow in its median,
			 * not in all its loops */
			pb_append(buf, len, "took up to %.2f times its fastest time, on CPU %u "
				  "at %.0f s into the run, but one of that probe's loops ran as "
				  "fast as the fastest probe's: the CPU's speed changed within the "
				  "probe, and no CPU was seen more than %.0f %% slower throughout "
				  "one.", s->slowest_ratio, s->slowest_cpu, s->slowest_at_s,
				  limit_pct);
		return;
	}
	char when[64], cpus[48] = "";
	if (s->slower == 1 || s->slower_to_s - s->slower_from_s < 0.5)
		pb_format(when, sizeof when, "at %.0f s", s->slower_from_s);
	else
		pb_format(when, sizeof when, "from %.0f to %.0f s", s->slower_from_s,
			  s->slower_to_s);
	if (s->slower_cpus > 1)
		pb_format(cpus, sizeof cpus, "; %u CPUs had slower probes", s->slower_cpus);
	pb_format(buf, len, "A fixed loop took up to %.2g times its fastest time, on CPU %u (%u of "
		  "%u probes more than %.0f %% slower, %s into the run%s): a CPU "
		  "ran slower for a while without time counted as stolen (its host core busy with "
		  "other work), and figures measured on it then may have moved with it.",
		  s->slowest_ratio, s->slowest_cpu, s->slower, s->probes, 100 * PB_SPEED_SLOWER,
		  when, cpus);
}
