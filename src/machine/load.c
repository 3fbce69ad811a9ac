#include "machine/load.h"

#include "util/kit.h"
#include "util/text.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

int pb_cpu_ticks_parse(const char *text, struct pb_cpu_ticks *out)
{
	memset(out, 0, sizeof *out);
	if (!text || strncmp(text, "cpu ", 4) != 0)
		return -1;
	uint64_t *fields[] = {&out->user, &out->nice, &out->system, &out->idle,
			      &out->iowait, &out->irq, &out->softirq, &out->steal};
	const char *p = text + 4;
	unsigned n = 0;
	while (n < sizeof fields / sizeof fields[0]) {
		while (*p == ' ')
			p++;
		if (*p < '0' || *p > '9')
			break;
		char *end;
		errno = 0;
		unsigned long long v = strtoull(p, &end, 10);
		if (errno)
			return -1;
		*fields[n++] = v;
		p = end;
	}
	if (n < 4) {
		memset(out, 0, sizeof *out);
		return -1;
	}
	out->valid = true;
	return 0;
}

void pb_machine_cpu_ticks(const struct pb_machine *m, struct pb_cpu_ticks *out)
{
	/* the first line is all that is needed; a longer file is cut on purpose */
	char buf[512];
	memset(out, 0, sizeof *out);
	if (pb_machine_read_file(m, "/proc/stat", buf, sizeof buf) > 0)
		pb_cpu_ticks_parse(buf, out);
}

static uint64_t busy_of(const struct pb_cpu_ticks *t)
{
	return t->user + t->nice + t->system;
}

/* A kind's ticks from a to b, 0 for one that went back: a NO_HZ kernel computes idle and
 * iowait from sleep times, and iowait "may decrease in certain conditions" (proc_stat(5)), which
 * would make the total less than its busy part. */
static double ticks_between(uint64_t a, uint64_t b)
{
	return b > a ? (double)(b - a) : 0;
}

static double total_between(const struct pb_cpu_ticks *a, const struct pb_cpu_ticks *b)
{
	return ticks_between(busy_of(a), busy_of(b)) + ticks_between(a->idle, b->idle) +
	       ticks_between(a->iowait, b->iowait) + ticks_between(a->irq, b->irq) +
	       ticks_between(a->softirq, b->softirq) + ticks_between(a->steal, b->steal);
}

/* The 95 % half-width, in ticks, of a count k out of n ticks (see load.h). */
static double ticks_ci95(double k, double n, double cpus)
{
	double p = n > 0 ? k / n : 0;
	return 1.96 * sqrt(n * p * (1 - p)) + 2 * cpus;
}

void pb_machine_load_between(const struct pb_cpu_ticks *start, const struct pb_cpu_ticks *end,
			     double own_cpu_s, double seconds, long ticks_per_s,
			     unsigned online_cpus, struct pb_machine_load *out)
{
	memset(out, 0, sizeof *out);
	if (!start->valid || !end->valid || !(seconds > 0) || ticks_per_s <= 0 ||
	    busy_of(end) < busy_of(start) || end->steal < start->steal)
		return;
	double hz = (double)ticks_per_s;
	double total = total_between(start, end);
	double busy = ticks_between(busy_of(start), busy_of(end));
	double steal = ticks_between(start->steal, end->steal);
	if (!(total > 0))
		return;
	out->seconds = seconds;
	out->cpus = online_cpus ? online_cpus : total / hz / seconds;
	double other = (busy / hz - own_cpu_s) / seconds;
	out->other_cpus = other > 0 ? other : 0;
	out->other_cpus_ci95 = ticks_ci95(busy, total, out->cpus) / hz / seconds;
	out->steal_pct = 100 * steal / total;
	out->steal_ci95_pp = 100 * ticks_ci95(steal, total, out->cpus) / total;
	out->valid = true;
}

double pb_process_cpu_s(void)
{
	struct timespec ts;
	double s = 0;
	if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) == 0)
		s = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
	struct rusage ru;
	if (getrusage(RUSAGE_CHILDREN, &ru) == 0)
		s += (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
		     (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
	return s;
}

void pb_machine_load_text(const struct pb_machine_load *load, char *buf, size_t len)
{
	char other[64], steal[64];
	pb_format_value_ci(other, sizeof other, "%.2f", load->other_cpus, load->other_cpus_ci95);
	pb_format_value_ci(steal, sizeof steal, "%.1f", load->steal_pct, load->steal_ci95_pp);
	/* an interval as wide as the machine bounds nothing: no figure is shown as one */
	if (!(load->other_cpus_ci95 < load->cpus)) {
		pb_format(buf, len, "the kernel's tick counts over so short a span tell nothing of "
			  "other work (±%.2g of the %.0f CPUs) or steal (±%.2g %%)",
			  load->other_cpus_ci95, load->cpus, load->steal_ci95_pp);
		return;
	}
	pb_format(buf, len, "other work kept %s of the %.0f CPUs busy, and the hypervisor withheld "
		  "%s %% of CPU time (steal)", other, load->cpus, steal);
}

void pb_machine_load_watch(const struct pb_machine *m, struct pb_load_watch *w)
{
	pb_machine_cpu_ticks(m, &w->ticks);
	w->own_cpu_s = pb_process_cpu_s();
	w->started_ns = pb_now_ns();
}

void pb_machine_load_since(const struct pb_machine *m, const struct pb_load_watch *w,
			   struct pb_machine_load *out)
{
	struct pb_cpu_ticks now;
	pb_machine_cpu_ticks(m, &now);
	double seconds = (double)(pb_now_ns() - w->started_ns) / 1e9;
	pb_machine_load_between(&w->ticks, &now, pb_process_cpu_s() - w->own_cpu_s, seconds,
				sysconf(_SC_CLK_TCK), m ? m->ncpus : 0, out);
}
