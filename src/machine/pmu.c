/* The PMUs' own files as the machine probe kept them: caps/ and format/ lookups, the CPU lists
 * of hybrid core PMUs, and sysfs format strings as bit fields of perf_event_attr. */
#include "machine/machine.h"

#include <ctype.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>

int pb_cpulist_parse(const char *text, uint64_t *mask, unsigned nbits)
{
	memset(mask, 0, (nbits + 63) / 64 * sizeof *mask);
	int count = 0;
	const char *p = text;
	while (*p) {
		char *end;
		if (!isdigit((unsigned char)*p))
			return -1;
		unsigned long lo = strtoul(p, &end, 10), hi = lo;
		if (*end == '-') {
			if (!isdigit((unsigned char)end[1]))
				return -1;
			hi = strtoul(end + 1, &end, 10);
		}
		if (hi < lo || hi >= nbits)
			return -1;
		for (unsigned long c = lo; c <= hi; c++)
			if (!(mask[c / 64] & (UINT64_C(1) << (c % 64)))) {
				mask[c / 64] |= UINT64_C(1) << (c % 64);
				count++;
			}
		p = end;
		if (*p == ',')
			p++;
		else if (*p && *p != '\n')
			return -1;
		else
			break;
	}
	return count;
}

#define PB_CPULIST_BITS 4096

unsigned pb_pmu_cpu_count(const struct pb_pmu *p)
{
	static _Thread_local uint64_t mask[PB_CPULIST_BITS / 64];
	int n = p && p->cpus[0] ? pb_cpulist_parse(p->cpus, mask, PB_CPULIST_BITS) : -1;
	return n > 0 ? (unsigned)n : 0;
}

int pb_pmu_cpu_at(const struct pb_pmu *p, unsigned i)
{
	static _Thread_local uint64_t mask[PB_CPULIST_BITS / 64];
	int n = p && p->cpus[0] ? pb_cpulist_parse(p->cpus, mask, PB_CPULIST_BITS) : -1;
	if (n <= 0)
		return -1;
	unsigned want = i % (unsigned)n;
	for (unsigned c = 0; c < PB_CPULIST_BITS; c++)
		if ((mask[c / 64] >> (c % 64)) & 1 && want-- == 0)
			return (int)c;
	return -1;
}

static const char *lookup_line(const char *lines, const char *name, char *buf, unsigned len)
{
	size_t nlen = strlen(name);
	for (const char *p = lines; p && *p;) {
		const char *eol = strchr(p, '\n');
		size_t llen = eol ? (size_t)(eol - p) : strlen(p);
		if (llen > nlen && !strncmp(p, name, nlen) && p[nlen] == '=') {
			size_t vlen = llen - nlen - 1;
			if (len == 0)
				return NULL;
			if (vlen >= len)
				vlen = len - 1;
			memcpy(buf, p + nlen + 1, vlen);
			buf[vlen] = '\0';
			return buf;
		}
		p = eol ? eol + 1 : NULL;
	}
	return NULL;
}

const char *pb_pmu_caps(const struct pb_pmu *p, const char *name, char *buf, unsigned len)
{
	return p ? lookup_line(p->caps, name, buf, len) : NULL;
}

const char *pb_pmu_format(const struct pb_pmu *p, const char *name, char *buf, unsigned len)
{
	return p ? lookup_line(p->formats, name, buf, len) : NULL;
}

int pb_format_parse(const char *text, struct pb_format_field *out)
{
	if (!text || strncmp(text, "config", 6))
		return -1;
	const char *p = text + 6;
	unsigned word = 0;
	if (*p >= '1' && *p <= '2')
		word = (unsigned)(*p++ - '0'); /* config3 is newer than the uapi header we build with */
	if (*p++ != ':' || !isdigit((unsigned char)*p))
		return -1;
	char *end;
	unsigned long lo = strtoul(p, &end, 10), hi = lo;
	if (*end == '-') {
		if (!isdigit((unsigned char)end[1]))
			return -1;
		hi = strtoul(end + 1, &end, 10);
	}
	if (*end != '\0' || lo > 63 || hi > 63 || hi < lo)
		return -1; /* "config:0-7,32-35" style split fields are not used by our PMUs */
	out->word = word;
	out->lo = (unsigned)lo;
	out->hi = (unsigned)hi;
	return 0;
}

uint64_t pb_format_max(const struct pb_format_field *f)
{
	unsigned width = f->hi - f->lo + 1;
	return width >= 64 ? UINT64_MAX : (UINT64_C(1) << width) - 1;
}

void pb_format_apply(struct perf_event_attr *attr, const struct pb_format_field *f,
		     uint64_t value)
{
	__u64 *word = f->word == 0 ? &attr->config : f->word == 1 ? &attr->config1
									 : &attr->config2;
	uint64_t mask = pb_format_max(f) << f->lo;
	*word = (*word & ~mask) | ((value << f->lo) & mask);
}
