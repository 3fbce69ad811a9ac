/* The sample histogram and the symbolizer `perfdata` and `profile` share: an IP of a process
 * to its object, its link-time address and "symbol+offset (object)". */
#include "analysis/profile.h"
#include "analysis/demangle.h"
#include "machine/machine.h"
#include "perfdata/perfdata.h"
#include "ring/record.h"
#include "util/text.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the histogram ---- */

static int cmp_hist_row(const void *a, const void *b)
{
	const struct pb_hist_row *x = a, *y = b;
	if (x->group != y->group)
		return x->group < y->group ? -1 : 1;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

void pb_histogram_sort(struct pb_histogram *h)
{
	if (h->sorted)
		return;
	if (h->n) /* a histogram of no samples has no rows: qsort's base must not be NULL */
		qsort(h->rows, h->n, sizeof *h->rows, cmp_hist_row);
	/* The index points at the old places: adding ends, and its memory goes. */
	pb_hashmap_free(&h->index);
	h->sorted = true;
}

void pb_histogram_free(struct pb_histogram *h)
{
	pb_hashmap_free(&h->index);
	free(h->rows);
	memset(h, 0, sizeof *h);
}

/* ---- the symbolizer ---- */

/* Starts an era of process pid at time, unless one starts then already. The file mostly gives
 * a process's mappings in time order: the search from the end stops at once. */
static int start_era(struct pb_symbolizer *sy, uint32_t pid, uint64_t time)
{
	bool added;
	if (pb_grow(&sy->eras, &sy->eras_cap, sy->neras, sizeof *sy->eras, 16))
		return -1;
	uint64_t *slot = pb_hashmap_upsert(&sy->era_index, pid, 0, &added);
	if (!slot)
		return -1;
	if (added) {
		sy->eras[sy->neras] = (struct pb_sym_eras){0};
		*slot = sy->neras++;
	}
	sy->last_era.valid = false;
	struct pb_sym_eras *e = &sy->eras[*slot];
	size_t at = e->n;
	while (at > 0 && e->at[at - 1].time > time)
		at--;
	if (at > 0 && e->at[at - 1].time == time)
		return 0;
	if (pb_grow(&e->at, &e->cap, e->n, sizeof *e->at, 8))
		return -1;
	memmove(e->at + at + 1, e->at + at, (e->n - at) * sizeof *e->at);
	e->at[at] = (struct pb_sym_era){.time = time, .id = ++sy->next_era};
	e->n++;
	return 0;
}

int pb_symbolizer_add_map(struct pb_symbolizer *sy, uint32_t pid, uint64_t start, uint64_t len,
			  uint64_t pgoff, const char *path, uint64_t time)
{
	char *copy;
	if (pb_grow(&sy->maps, &sy->maps_cap, sy->nmaps, sizeof *sy->maps, 64) ||
	    !(copy = strdup(path)))
		return -1;
	sy->maps[sy->nmaps++] = (struct pb_sym_map){.pid = pid, .start = start, .len = len,
						    .pgoff = pgoff, .time = time,
						    .seq = sy->next_seq++, .path = copy};
	/* an untimed mapping counts from the start; kernel mappings are made once, at boot */
	return time && pid != UINT32_MAX ? start_era(sy, pid, time) : 0;
}

uint32_t pb_symbolizer_era(struct pb_symbolizer *sy, uint32_t pid, uint64_t time)
{
	if (time == PB_SYM_TIME_UNKNOWN)
		return PB_SYM_ERA_UNKNOWN;
	uint32_t cached;
	if (pb_symbolizer_era_cached(sy, pid, time, &cached))
		return cached;
	const uint64_t *slot = pb_hashmap_find(&sy->era_index, pid, 0);
	const struct pb_sym_eras *e = slot ? &sy->eras[*slot] : &(struct pb_sym_eras){0};
	size_t lo = 0, hi = e->n; /* the eras that start at or before time: [0, lo) */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (e->at[mid].time <= time)
			lo = mid + 1;
		else
			hi = mid;
	}
	sy->last_era.pid = pid;
	sy->last_era.era = lo ? e->at[lo - 1].id : 0;
	sy->last_era.from = lo ? e->at[lo - 1].time : 0;
	sy->last_era.until = lo < e->n ? e->at[lo].time : PB_SYM_TIME_UNKNOWN;
	sy->last_era.valid = true;
	return sy->last_era.era;
}

int pb_symbolizer_fork(struct pb_symbolizer *sy, uint32_t pid, uint32_t ppid, uint64_t time)
{
	if (pb_grow(&sy->forks, &sy->forks_cap, sy->nforks, sizeof *sy->forks, 8))
		return -1;
	sy->forks[sy->nforks++] =
		(struct pb_sym_fork){.pid = pid, .ppid = ppid, .time = time, .seq = sy->next_seq++};
	return 0;
}

int pb_symbolizer_take(struct pb_symbolizer *sy, const struct pb_record *rec)
{
	if ((rec->type == PERF_RECORD_MMAP || rec->type == PERF_RECORD_MMAP2) &&
	    rec->u.mmap.filename)
		return pb_symbolizer_add_map(sy, rec->u.mmap.pid, rec->u.mmap.addr, rec->u.mmap.len,
					     rec->u.mmap.pgoff, rec->u.mmap.filename,
					     rec->sample_id.time);
	/* a new process starts with its parent's mappings; no MMAP record repeats them */
	if (rec->type == PERF_RECORD_FORK && rec->u.task.pid != rec->u.task.ppid)
		return pb_symbolizer_fork(sy, rec->u.task.pid, rec->u.task.ppid, rec->u.task.time);
	return 0;
}

/* Before or at once: by time when both have one, else by the order they were announced. */
static bool made_by(uint64_t time, uint64_t seq, uint64_t by_time, uint64_t by_seq)
{
	return time && by_time ? time <= by_time : seq < by_seq;
}

static int cmp_fork(const void *a, const void *b)
{
	const struct pb_sym_fork *x = a, *y = b;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Time, then announcement; unknown times (0) first, as a recording's synthesized mappings of
 * what existed before it began have none. */
static int cmp_map(const void *a, const void *b)
{
	const struct pb_sym_map *x = a, *y = b;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

int pb_symbolizer_settle(struct pb_symbolizer *sy)
{
	bool timed = true;
	for (size_t f = 0; f < sy->nforks; f++)
		timed = timed && sy->forks[f].time;
	if (timed && sy->nforks > 1)
		qsort(sy->forks, sy->nforks, sizeof *sy->forks, cmp_fork);
	for (size_t f = 0; f < sy->nforks; f++) {
		const struct pb_sym_fork fk = sy->forks[f];
		for (size_t i = 0, n = sy->nmaps; i < n; i++) {
			const struct pb_sym_map m = sy->maps[i];
			if (m.pid != fk.ppid || !made_by(m.time, m.seq, fk.time, fk.seq))
				continue;
			char *copy;
			if (pb_grow(&sy->maps, &sy->maps_cap, sy->nmaps, sizeof *sy->maps, 64) ||
			    !(copy = strdup(m.path)))
				return -1;
			sy->maps[sy->nmaps] = m;
			sy->maps[sy->nmaps].pid = fk.pid;
			sy->maps[sy->nmaps++].path = copy;
		}
	}
	sy->nforks = 0;
	if (sy->nmaps > 1)
		qsort(sy->maps, sy->nmaps, sizeof *sy->maps, cmp_map);
	return 0;
}

long pb_symbolizer_object(struct pb_symbolizer *sy, const char *path)
{
	for (size_t i = 0; i < sy->nobjects; i++)
		if (!strcmp(sy->objects[i].path, path))
			return (long)i;
	if (pb_grow(&sy->objects, &sy->objects_cap, sy->nobjects, sizeof *sy->objects, 16))
		return -1;
	struct pb_sym_object *o = &sy->objects[sy->nobjects];
	o->path = strdup(path);
	if (!o->path)
		return -1;
	struct pb_error err;
	if (pb_prof_object_open(path, &o->object, &err))
		o->object = NULL;
	return (long)sy->nobjects++;
}

const struct pb_sym_map *pb_symbolizer_map_at(const struct pb_symbolizer *sy, uint32_t pid,
					      uint64_t ip, uint64_t time)
{
	const struct pb_sym_map *earliest_later = NULL;
	for (size_t k = sy->nmaps; k-- > 0;) {
		const struct pb_sym_map *m = &sy->maps[k];
		bool holds = (m->pid == pid || m->pid == UINT32_MAX) && ip >= m->start &&
			     ip - m->start < m->len;
		if (!holds)
			continue;
		if (m->time <= time)
			return m;
		earliest_later = m;
	}
	/* Code cannot run before it is mapped, yet this sample's time precedes every mapping
	 * holding its address: each CPU's ring stamps its records by that CPU's clock, and the
	 * clocks disagree a little (a mapping perf synthesized at the recording's start can be
	 * stamped after another CPU's first samples). The mapping made closest after the sample
	 * is the one it ran in. */
	return earliest_later;
}

bool pb_symbolizer_resolve_at(struct pb_symbolizer *sy, uint32_t pid, uint64_t ip, uint64_t time,
			      size_t *object, uint64_t *addr)
{
	const struct pb_sym_map *m = pb_symbolizer_map_at(sy, pid, ip, time);
	if (!m)
		return false;
	long o = pb_symbolizer_object(sy, m->path);
	if (o < 0 || !sy->objects[o].object ||
	    !pb_prof_object_offset_to_addr(sy->objects[o].object, ip - m->start + m->pgoff, addr))
		return false;
	*object = (size_t)o;
	return true;
}

/* ---- kernel addresses ---- */

#define KERNEL_MAP "[kernel.kallsyms]"
/* /proc/kallsyms is some 6 MB on a distribution's kernel; a file many times that is no
 * kallsyms */
#define KALLSYMS_MAX_BYTES (256u << 20)

bool pb_sym_map_is_kernel(const struct pb_sym_map *m)
{
	return !strncmp(m->path, KERNEL_MAP, strlen(KERNEL_MAP));
}

/* Why the running kernel is not the recording's, into why; "" when it is, as far as the
 * recording tells (its build id, else its release). */
static void kernel_mismatch(const struct pb_sym_kernel *k, char *why, size_t len)
{
	char release[128] = "", id[41] = "";
	size_t n;
	if (pb_machine_read_file(k->running, "/proc/sys/kernel/osrelease", release,
				 sizeof release) < 0)
		release[0] = '\0';
	char *notes = pb_machine_read_whole(k->running, "/sys/kernel/notes", 1u << 20, &n);
	if (!notes || !pb_kernel_notes_build_id((const uint8_t *)notes, n, id, sizeof id))
		id[0] = '\0';
	free(notes);
	why[0] = '\0';
	if (k->recorded_build_id[0] && strcmp(k->recorded_build_id, id))
		pb_format(why, len, "the recording's kernel (build id %.12s...) is not this one "
			  "(%s%.12s%s)", k->recorded_build_id,
			  id[0] ? "build id " : "whose build id cannot be read", id,
			  id[0] ? "..." : "");
	else if (!k->recorded_build_id[0] && !k->recorded_release[0])
		pb_format(why, len, "the recording says neither its kernel's build id nor its "
			  "release, so this kernel's symbols cannot be checked against it");
	else if (!k->recorded_build_id[0] && strcmp(k->recorded_release, release))
		pb_format(why, len, "the recording's kernel is %s, this one %s",
			  k->recorded_release, release[0] ? release : "unknown");
}

/* Decides whether the running kernel's symbols name the recording's (see profile.h), into
 * k->note; true when they do. */
static bool kernel_decide(struct pb_sym_kernel *k, const struct pb_sym_map *m)
{
	const char *ref = m->path + strlen(KERNEL_MAP);
	char why[sizeof k->note] = "";
	const size_t len = sizeof why;
	size_t n;
	char *text = NULL;
	uint64_t at = 0;
	if (!*ref)
		pb_format(why, len, "the recording's kernel mapping names no symbol its address "
			  "can be checked by");
	else
		kernel_mismatch(k, why, len);
	if (!why[0] &&
	    !(text = pb_machine_read_whole(k->running, "/proc/kallsyms", KALLSYMS_MAX_BYTES, &n)))
		pb_format(why, len, "/proc/kallsyms cannot be read");
	if (text) {
		int rc = pb_kallsyms_parse(text, n, &k->syms);
		free(text);
		if (rc)
			pb_format(why, len, "out of memory reading /proc/kallsyms");
		else if (k->syms.hidden)
			pb_format(why, len, "/proc/kallsyms hides its addresses from this user "
				  "(kernel.kptr_restrict): run as root");
		else if (!pb_kallsyms_address(&k->syms, ref, &at))
			pb_format(why, len, "/proc/kallsyms has no %s, the symbol the recording's "
				  "kernel mapping is placed by", ref);
		else if (at != m->pgoff)
			pb_format(why, len, "this kernel's %s is at 0x%" PRIx64 ", the "
				  "recording's at 0x%" PRIx64 ": a recording of another boot", ref,
				  at, m->pgoff);
	}
	if (why[0]) {
		pb_kallsyms_free(&k->syms);
		pb_format(k->note, sizeof k->note, "kernel addresses are named by their mapping "
			  "only (" KERNEL_MAP "): %s", why);
		return false;
	}
	bool by_id = k->recorded_build_id[0];
	pb_format(k->note, sizeof k->note, "kernel addresses are named from /proc/kallsyms: the "
		  "recording's kernel is this one (%s%.12s%s, %s at 0x%" PRIx64 ")",
		  by_id ? "build id " : "release ", by_id ? k->recorded_build_id
		  : k->recorded_release, by_id ? "..." : "; the recording holds no build id", ref,
		  at);
	if (k->syms.unparsed)
		pb_append(k->note, sizeof k->note, "; %zu of its lines were no symbol",
			  k->syms.unparsed);
	return true;
}

void pb_symbolizer_recorded_on(struct pb_symbolizer *sy, const struct pb_perfdata *pd)
{
	pb_format(sy->kernel.recorded_release, sizeof sy->kernel.recorded_release, "%s",
		  pb_perfdata_osrelease(pd));
	pb_format(sy->kernel.recorded_build_id, sizeof sy->kernel.recorded_build_id, "%s",
		  pb_perfdata_kernel_build_id(pd));
}

/* Whether the running kernel's symbols name m's addresses, decided on the first ask. */
static bool kernel_named(struct pb_symbolizer *sy, const struct pb_sym_map *m)
{
	if (!sy->kernel.state)
		sy->kernel.state = kernel_decide(&sy->kernel, m) ? 1 : -1;
	return sy->kernel.state > 0;
}

const char *pb_symbolizer_kernel_symbol(struct pb_symbolizer *sy, const struct pb_sym_map *m,
					uint64_t ip, uint64_t *start)
{
	return kernel_named(sy, m) ? pb_kallsyms_find(&sy->kernel.syms, ip, start) : NULL;
}

void pb_symbolizer_name_at(struct pb_symbolizer *sy, uint32_t pid, uint64_t ip, uint64_t time,
			   char *out, size_t len)
{
	out[0] = '\0';
	const struct pb_sym_map *m = pb_symbolizer_map_at(sy, pid, ip, time);
	if (!m)
		return;
	if (pb_sym_map_is_kernel(m)) {
		uint64_t start;
		const char *name = pb_symbolizer_kernel_symbol(sy, m, ip, &start);
		if (name)
			snprintf(out, len, "%s+0x%" PRIx64 " (" KERNEL_MAP ")", name, ip - start);
		else
			snprintf(out, len, KERNEL_MAP);
		return;
	}
	if (m->path[0] != '/') {
		snprintf(out, len, "%s", m->path);
		return;
	}
	size_t o;
	uint64_t addr, start;
	const char *name = NULL;
	if (pb_symbolizer_resolve_at(sy, pid, ip, time, &o, &addr))
		name = pb_prof_object_symbol(sy->objects[o].object, addr, &start);
	if (name) {
		char shown[256];
		pb_demangle_into(name, shown, sizeof shown);
		snprintf(out, len, "%s+0x%" PRIx64 " (%s)", shown, addr - start,
			 pb_path_base(m->path));
	}
	else
		snprintf(out, len, "(%s+0x%" PRIx64 ")", pb_path_base(m->path),
			 ip - m->start + m->pgoff);
}

const struct pb_sym_map *pb_symbolizer_map(const struct pb_symbolizer *sy, uint32_t pid,
					   uint64_t ip)
{
	return pb_symbolizer_map_at(sy, pid, ip, PB_SYM_TIME_UNKNOWN);
}

bool pb_symbolizer_resolve(struct pb_symbolizer *sy, uint32_t pid, uint64_t ip, size_t *object,
			   uint64_t *addr)
{
	return pb_symbolizer_resolve_at(sy, pid, ip, PB_SYM_TIME_UNKNOWN, object, addr);
}

void pb_symbolizer_name(struct pb_symbolizer *sy, uint32_t pid, uint64_t ip, char *out,
			size_t len)
{
	pb_symbolizer_name_at(sy, pid, ip, PB_SYM_TIME_UNKNOWN, out, len);
}

void pb_symbolizer_free(struct pb_symbolizer *sy)
{
	for (size_t i = 0; i < sy->nmaps; i++)
		free(sy->maps[i].path);
	free(sy->maps);
	free(sy->forks);
	for (size_t i = 0; i < sy->neras; i++)
		free(sy->eras[i].at);
	free(sy->eras);
	pb_hashmap_free(&sy->era_index);
	for (size_t i = 0; i < sy->nobjects; i++) {
		if (sy->objects[i].object)
			pb_prof_object_close(sy->objects[i].object);
		free(sy->objects[i].path);
	}
	free(sy->objects);
	pb_kallsyms_free(&sy->kernel.syms);
	memset(sy, 0, sizeof *sy);
}
