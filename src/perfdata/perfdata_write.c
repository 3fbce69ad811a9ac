/* Writing perf.data: the header, attrs and ids go first (fixed once the first record is
 * written), the data section streams after them, and the feature sections and the final
 * header are written at close. perf refuses an attr whose `size` is larger than the struct it
 * was built with, so each attr is stored at the smallest published size that holds its non-zero
 * fields; the file only appears under its name once complete (temporary file + rename). */
#include "perfdata/perfdata.h"
#include "util/kit.h"

#include <ctype.h>
#include <dirent.h>
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <libelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <unistd.h>

#define FILE_HEADER_SIZE 104u
#define HEADER_STRING_ALIGN 64u
#define MAX_WRITER_EVENTS 64
#define MAX_WRITER_PMUS 128
#define MAX_WRITER_FILES 256
#define BUILD_ID_NAME_ALIGN 64u   /* perf's NAME_ALIGN for build-id file names */

struct writer_event {
	struct perf_event_attr attr;
	char name[PB_PERFDATA_NAME_MAX];
	uint64_t *ids;
	size_t nids;
};

struct pb_perfdata_writer {
	char *path, *tmp_path;
	FILE *f;
	struct writer_event events[MAX_WRITER_EVENTS];
	size_t nevents;
	uint32_t attr_size;            /* stored attr.size, the same for every attr */
	bool started;                  /* header, attrs and ids are laid out */
	uint64_t attrs_offset, data_offset, data_bytes;
	char cpuid[128], cpudesc[128];
	struct pb_perfdata_pmu pmus[MAX_WRITER_PMUS];
	size_t npmus;
	char *files[MAX_WRITER_FILES];  /* files of the MMAP2 records: their build-ids at close */
	uint32_t file_pid[MAX_WRITER_FILES];
	size_t nfiles;
	bool failed;
	bool anonymous;                /* no host name, command line or memory size */
};

/* A growable byte buffer for feature payloads. */
struct buf {
	uint8_t *p;
	size_t len, cap;
	bool oom;
};

static void put(struct buf *b, const void *data, size_t n)
{
	if (b->oom || n == 0)
		return;
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		while (cap < b->len + n)
			cap *= 2;
		uint8_t *p = realloc(b->p, cap);
		if (!p) {
			b->oom = true;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, data, n);
	b->len += n;
}

static void put_u32(struct buf *b, uint32_t v) { put(b, &v, 4); }
static void put_u64(struct buf *b, uint64_t v) { put(b, &v, 8); }

static void put_zeros(struct buf *b, size_t n)
{
	static const uint8_t zeros[64];
	while (n) {
		size_t k = n < sizeof zeros ? n : sizeof zeros;
		put(b, zeros, k);
		n -= k;
	}
}

/* perf_header_string: u32 padded length, then the string NUL-padded to a multiple of 64. */
static void put_string(struct buf *b, const char *s)
{
	size_t n = strlen(s) + 1;
	size_t padded = (n + HEADER_STRING_ALIGN - 1) / HEADER_STRING_ALIGN * HEADER_STRING_ALIGN;
	put_u32(b, (uint32_t)padded);
	put(b, s, n);
	put_zeros(b, padded - n);
}

static int io_fail(struct pb_perfdata_writer *w, struct pb_error *err, const char *what)
{
	w->failed = true;
	return pb_fail(err, PB_EXIT_OUTPUT, errno, "cannot write %s (%s): %s", w->path, what,
		       strerror(errno));
}

static void read_line_value(const char *file, const char *key, char *dst, size_t len)
{
	FILE *f = fopen(file, "r");
	char line[512];
	if (!f)
		return;
	size_t klen = strlen(key);
	while (fgets(line, sizeof line, f)) {
		if (strncmp(line, key, klen) || (line[klen] != ' ' && line[klen] != '\t' &&
						 line[klen] != ':'))
			continue;
		const char *v = strchr(line, ':');
		if (!v)
			continue;
		v++;
		while (*v == ' ' || *v == '\t')
			v++;
		snprintf(dst, len, "%s", v);
		dst[strcspn(dst, "\n")] = '\0';
		break;
	}
	fclose(f);
}

/* perf's cpuid string: on x86 "vendor,family,model,stepping" in decimal. */
static void machine_cpuid(char *dst, size_t len)
{
	char vendor[64] = "", family[16] = "", model[16] = "", stepping[16] = "";
	read_line_value("/proc/cpuinfo", "vendor_id", vendor, sizeof vendor);
	read_line_value("/proc/cpuinfo", "cpu family", family, sizeof family);
	read_line_value("/proc/cpuinfo", "model", model, sizeof model);
	read_line_value("/proc/cpuinfo", "stepping", stepping, sizeof stepping);
	if (vendor[0]) {
		snprintf(dst, len, "%s,%s,%s,%s", vendor, family, model, stepping);
		return;
	}
	/* arm64 perf writes cpu0's MIDR_EL1, "0x%016lx" as sysfs spells it
	 * (tools/perf/arch/arm64/util/header.c) */
	FILE *f = fopen("/sys/devices/system/cpu/cpu0/regs/identification/midr_el1", "r");
	char midr[32] = "";
	if (!f)
		return;
	if (fgets(midr, sizeof midr, f) && !strncmp(midr, "0x", 2)) {
		midr[strcspn(midr, "\n")] = '\0';
		snprintf(dst, len, "%s", midr);
	}
	fclose(f);
}

static void machine_pmus(struct pb_perfdata_writer *w)
{
	DIR *d = opendir("/sys/bus/event_source/devices");
	struct dirent *e;
	if (!d)
		return;
	while ((e = readdir(d)) && w->npmus < MAX_WRITER_PMUS) {
		if (e->d_name[0] == '.')
			continue;
		char path[512], value[32] = "";
		snprintf(path, sizeof path, "/sys/bus/event_source/devices/%s/type", e->d_name);
		FILE *f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(value, sizeof value, f))
			pb_perfdata_writer_add_pmu(w, (uint32_t)strtoul(value, NULL, 10), e->d_name);
		fclose(f);
	}
	closedir(d);
}

int pb_perfdata_writer_open(const char *path, struct pb_perfdata_writer **out,
			    struct pb_error *err)
{
	struct pb_perfdata_writer *w = calloc(1, sizeof(*w));
	if (!w)
		return pb_fail(err, PB_EXIT_FAILURE, ENOMEM, "out of memory");
	w->path = strdup(path);
	w->tmp_path = malloc(strlen(path) + 16);
	if (!w->path || !w->tmp_path) {
		pb_perfdata_writer_abort(w);
		return pb_fail(err, PB_EXIT_FAILURE, ENOMEM, "out of memory");
	}
	sprintf(w->tmp_path, "%s.tmp.XXXXXX", path);
	int fd = mkstemp(w->tmp_path);
	if (fd < 0) {
		int e = errno;
		free(w->tmp_path);
		w->tmp_path = NULL;
		pb_perfdata_writer_abort(w);
		return pb_fail(err, PB_EXIT_OUTPUT, e, "cannot create %s: %s", path, strerror(e));
	}
	w->f = fdopen(fd, "w+");
	if (!w->f) {
		close(fd);
		pb_perfdata_writer_abort(w);
		return pb_fail(err, PB_EXIT_OUTPUT, errno, "cannot write %s", path);
	}
	machine_cpuid(w->cpuid, sizeof w->cpuid);
	read_line_value("/proc/cpuinfo", "model name", w->cpudesc, sizeof w->cpudesc);
	machine_pmus(w);
	*out = w;
	return 0;
}

/* The smallest published attr size (PERF_ATTR_SIZE_VER0..) whose tail beyond it is all zero. */
static uint32_t attr_needed_size(const struct perf_event_attr *attr)
{
	static const uint32_t sizes[] = {64, 72, 80, 96, 104, 112, 120, 128, 136, 144};
	const uint8_t *p = (const uint8_t *)attr;
	size_t last = 0;
	for (size_t i = 0; i < sizeof(*attr); i++)
		if (p[i])
			last = i + 1;
	for (size_t i = 0; i < PB_ARRAY_SIZE(sizes); i++)
		if (sizes[i] >= last && sizes[i] <= sizeof(*attr))
			return sizes[i];
	return (uint32_t)sizeof(*attr);
}

int pb_perfdata_writer_add_event(struct pb_perfdata_writer *w, const struct perf_event_attr *attr,
				 const char *name, const uint64_t *ids, size_t nids,
				 struct pb_error *err)
{
	if (w->started)
		return pb_fail(err, PB_EXIT_USAGE, 0,
			       "perf.data writer: events must be added before the first record");
	if (w->nevents == MAX_WRITER_EVENTS)
		return pb_fail(err, PB_EXIT_USAGE, 0, "perf.data writer: at most %d events",
			       MAX_WRITER_EVENTS);
	struct writer_event *ev = &w->events[w->nevents];
	memset(ev, 0, sizeof(*ev));
	ev->attr = *attr;
	ev->attr.size = 0;
	snprintf(ev->name, sizeof ev->name, "%s", name ? name : "event");
	if (nids) {
		ev->ids = malloc(nids * sizeof(uint64_t));
		if (!ev->ids)
			return pb_fail(err, PB_EXIT_FAILURE, ENOMEM, "out of memory");
		memcpy(ev->ids, ids, nids * sizeof(uint64_t));
		ev->nids = nids;
	}
	uint32_t need = attr_needed_size(&ev->attr);
	if (need > w->attr_size)
		w->attr_size = need;
	return (int)w->nevents++;
}

int pb_perfdata_writer_set_cpuid(struct pb_perfdata_writer *w, const char *cpuid)
{
	snprintf(w->cpuid, sizeof w->cpuid, "%s", cpuid);
	return 0;
}

int pb_perfdata_writer_set_cpudesc(struct pb_perfdata_writer *w, const char *cpudesc)
{
	snprintf(w->cpudesc, sizeof w->cpudesc, "%s", cpudesc);
	return 0;
}

int pb_perfdata_writer_add_pmu(struct pb_perfdata_writer *w, uint32_t type, const char *name)
{
	/* a PMU name perf would read cut short is refused, not written wrong */
	if (strlen(name) >= sizeof w->pmus[0].name)
		return -1;
	for (size_t i = 0; i < w->npmus; i++)
		if (w->pmus[i].type == type) {
			memcpy(w->pmus[i].name, name, strlen(name) + 1);
			return 0;
		}
	if (w->npmus == MAX_WRITER_PMUS)
		return -1;
	w->pmus[w->npmus].type = type;
	memcpy(w->pmus[w->npmus].name, name, strlen(name) + 1);
	w->npmus++;
	return 0;
}

void pb_perfdata_writer_anonymous(struct pb_perfdata_writer *w)
{
	w->anonymous = true;
}

void pb_perfdata_writer_clear_pmus(struct pb_perfdata_writer *w) { w->npmus = 0; }

static int write_all(struct pb_perfdata_writer *w, const void *p, size_t n, struct pb_error *err)
{
	if (n && fwrite(p, 1, n, w->f) != n)
		return io_fail(w, err, "data");
	return 0;
}

/* Lays out header space, the attrs and their ids; the data section starts after them. */
static int start(struct pb_perfdata_writer *w, struct pb_error *err)
{
	if (w->started)
		return w->failed ? pb_fail(err, PB_EXIT_OUTPUT, 0, "perf.data writer failed earlier")
				 : 0;
	if (w->nevents == 0)
		return pb_fail(err, PB_EXIT_USAGE, 0, "perf.data writer: add an event first");
	w->started = true;
	struct buf b = {0};
	put_zeros(&b, FILE_HEADER_SIZE);
	w->attrs_offset = b.len;
	uint64_t ids_offset = w->attrs_offset + (uint64_t)w->nevents * (w->attr_size + 16);
	for (size_t i = 0; i < w->nevents; i++) {
		struct perf_event_attr a = w->events[i].attr;
		a.size = w->attr_size;
		put(&b, &a, w->attr_size);
		put_u64(&b, ids_offset);
		put_u64(&b, w->events[i].nids * 8);
		ids_offset += w->events[i].nids * 8;
	}
	for (size_t i = 0; i < w->nevents; i++)
		put(&b, w->events[i].ids, w->events[i].nids * 8);
	if (b.oom) {
		free(b.p);
		w->failed = true;
		return pb_fail(err, PB_EXIT_FAILURE, ENOMEM, "out of memory");
	}
	w->data_offset = b.len;
	int rc = write_all(w, b.p, b.len, err);
	free(b.p);
	return rc;
}

int pb_perfdata_writer_record(struct pb_perfdata_writer *w, const void *bytes, size_t len,
			      struct pb_error *err)
{
	struct perf_event_header h;
	if (len < sizeof h)
		return pb_fail(err, PB_EXIT_USAGE, 0, "perf.data writer: record shorter than a header");
	memcpy(&h, bytes, sizeof h);
	if (h.size != len || len % 8)
		return pb_fail(err, PB_EXIT_USAGE, 0,
			       "perf.data writer: record size %u disagrees with its %zu bytes or is "
			       "not a multiple of 8", h.size, len);
	if (start(w, err) || write_all(w, bytes, len, err))
		return -1;
	w->data_bytes += len;
	return 0;
}

/* The sample_id trailer of sideband records, from the first event's attr. */
static void put_sample_id(const struct pb_perfdata_writer *w, struct buf *b, uint32_t pid,
			  uint32_t tid)
{
	const struct perf_event_attr *a = &w->events[0].attr;
	if (!a->sample_id_all)
		return;
	uint64_t st = a->sample_type;
	uint64_t id = w->events[0].nids ? w->events[0].ids[0] : 0;
	if (st & PERF_SAMPLE_TID) {
		put_u32(b, pid);
		put_u32(b, tid);
	}
	if (st & PERF_SAMPLE_TIME)
		put_u64(b, 0);
	if (st & PERF_SAMPLE_ID)
		put_u64(b, id);
	if (st & PERF_SAMPLE_STREAM_ID)
		put_u64(b, id);
	if (st & PERF_SAMPLE_CPU)
		put_u64(b, 0);
	if (st & PERF_SAMPLE_IDENTIFIER)
		put_u64(b, id);
}

static int finish_record(struct pb_perfdata_writer *w, struct buf *b, struct pb_error *err)
{
	if (b->oom || b->len > UINT16_MAX) {
		free(b->p);
		return pb_fail(err, PB_EXIT_USAGE, 0, "perf.data writer: record too large (%zu bytes)",
			       b->len);
	}
	uint16_t size = (uint16_t)b->len;
	memcpy(b->p + 6, &size, 2);
	int rc = pb_perfdata_writer_record(w, b->p, b->len, err);
	free(b->p);
	return rc;
}

static void put_header(struct buf *b, uint32_t type, uint16_t misc)
{
	put_u32(b, type);
	put(b, &misc, 2);
	put_zeros(b, 2);
}

/* A NUL-terminated string padded with zeros to a multiple of 8. */
static void put_padded(struct buf *b, const char *s)
{
	size_t n = strlen(s) + 1;
	put(b, s, n);
	put_zeros(b, (8 - n % 8) % 8);
}

int pb_perfdata_writer_comm(struct pb_perfdata_writer *w, uint32_t pid, uint32_t tid,
			    const char *comm, struct pb_error *err)
{
	struct buf b = {0};
	put_header(&b, PERF_RECORD_COMM, 0);
	put_u32(&b, pid);
	put_u32(&b, tid);
	char name[16];
	snprintf(name, sizeof name, "%s", comm); /* the kernel's TASK_COMM_LEN */
	put_padded(&b, name);
	put_sample_id(w, &b, pid, tid);
	return finish_record(w, &b, err);
}

int pb_perfdata_writer_mmap2(struct pb_perfdata_writer *w, uint32_t pid, uint32_t tid,
			     uint64_t addr, uint64_t len, uint64_t pgoff, uint32_t prot,
			     uint32_t flags, const char *filename, struct pb_error *err)
{
	struct buf b = {0};
	put_header(&b, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER);
	put_u32(&b, pid);
	put_u32(&b, tid);
	put_u64(&b, addr);
	put_u64(&b, len);
	put_u64(&b, pgoff);
	put_zeros(&b, 8 + 16); /* maj, min, ino, ino_generation: unknown, perf does not need them */
	put_u32(&b, prot);
	put_u32(&b, flags);
	put_padded(&b, filename);
	put_sample_id(w, &b, pid, tid);
	bool known = filename[0] != '/';
	for (size_t i = 0; i < w->nfiles && !known; i++)
		known = !strcmp(w->files[i], filename);
	if (!known && w->nfiles < MAX_WRITER_FILES && (w->files[w->nfiles] = strdup(filename)))
		w->file_pid[w->nfiles++] = pid;
	return finish_record(w, &b, err);
}

int pb_perfdata_writer_lost(struct pb_perfdata_writer *w, uint64_t id, uint64_t lost,
			    struct pb_error *err)
{
	struct buf b = {0};
	put_header(&b, PERF_RECORD_LOST, 0);
	put_u64(&b, id);
	put_u64(&b, lost);
	put_sample_id(w, &b, 0, 0);
	return finish_record(w, &b, err);
}

int pb_perfdata_writer_proc_maps(struct pb_perfdata_writer *w, uint32_t pid,
				 struct pb_error *err)
{
	char path[64], comm[64] = "";
	snprintf(path, sizeof path, "/proc/%u/comm", pid);
	FILE *f = fopen(path, "r");
	if (f) {
		if (fgets(comm, sizeof comm, f))
			comm[strcspn(comm, "\n")] = '\0';
		fclose(f);
	}
	if (pb_perfdata_writer_comm(w, pid, pid, comm[0] ? comm : "pesbench", err))
		return -1;
	snprintf(path, sizeof path, "/proc/%u/maps", pid);
	f = fopen(path, "r");
	if (!f)
		return pb_fail(err, PB_EXIT_FAILURE, errno, "cannot read %s: %s", path,
			       strerror(errno));
	char line[4096];
	int rc = 0;
	while (!rc && fgets(line, sizeof line, f)) {
		unsigned long long start, end, off;
		char perms[8];
		int name_at = 0;
		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &start, &end, perms, &off,
			   &name_at) < 4 || !name_at)
			continue;
		char *name = line + name_at;
		name[strcspn(name, "\n")] = '\0';
		if (perms[2] != 'x' || name[0] != '/')
			continue;
		uint32_t prot = (perms[0] == 'r' ? PROT_READ : 0) | (perms[1] == 'w' ? PROT_WRITE : 0) |
				PROT_EXEC;
		uint32_t flags = perms[3] == 's' ? MAP_SHARED : MAP_PRIVATE;
		rc = pb_perfdata_writer_mmap2(w, pid, pid, start, end - start, off, prot, flags, name,
					      err);
	}
	fclose(f);
	return rc;
}

int pb_perfdata_writer_sample(struct pb_perfdata_writer *w, unsigned event,
			      const struct pb_sample *s, struct pb_error *err)
{
	if (event >= w->nevents)
		return pb_fail(err, PB_EXIT_USAGE, 0, "perf.data writer: no event %u", event);
	const struct writer_event *ev = &w->events[event];
	uint64_t st = ev->attr.sample_type;
	const uint64_t unsupported = PERF_SAMPLE_READ | PERF_SAMPLE_BRANCH_STACK |
				     PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER |
				     PERF_SAMPLE_REGS_INTR | PERF_SAMPLE_AUX;
	if (st & unsupported)
		return pb_fail(err, PB_EXIT_USAGE, 0,
			       "perf.data writer: event %u samples fields (0x%llx) the encoder "
			       "does not write (read values, branch stacks, registers, stacks, "
			       "AUX); write such records with pb_perfdata_writer_record", event,
			       (unsigned long long)(st & unsupported));
	uint64_t id = ev->nids ? ev->ids[0] : 0;
	uint64_t sid = s->id ? s->id : id;
	struct buf b = {0};
	put_header(&b, PERF_RECORD_SAMPLE, s->misc);
	if (st & PERF_SAMPLE_IDENTIFIER)
		put_u64(&b, s->identifier ? s->identifier : sid);
	if (st & PERF_SAMPLE_IP)
		put_u64(&b, s->ip);
	if (st & PERF_SAMPLE_TID) {
		put_u32(&b, s->pid);
		put_u32(&b, s->tid);
	}
	if (st & PERF_SAMPLE_TIME)
		put_u64(&b, s->time);
	if (st & PERF_SAMPLE_ADDR)
		put_u64(&b, s->addr);
	if (st & PERF_SAMPLE_ID)
		put_u64(&b, sid);
	if (st & PERF_SAMPLE_STREAM_ID)
		put_u64(&b, s->stream_id ? s->stream_id : sid);
	if (st & PERF_SAMPLE_CPU) {
		put_u32(&b, s->cpu);
		put_u32(&b, 0);
	}
	if (st & PERF_SAMPLE_PERIOD)
		put_u64(&b, s->period ? s->period : ev->attr.sample_period);
	if (st & PERF_SAMPLE_CALLCHAIN) {
		put_u64(&b, s->callchain ? s->callchain_nr : 0);
		if (s->callchain)
			put(&b, s->callchain, s->callchain_nr * 8);
	}
	if (st & PERF_SAMPLE_RAW) {
		/* perf reads the next field right after u32 size + size bytes, so, like the
		 * kernel, the payload is zero-extended until that is 8-byte aligned. */
		uint32_t size = s->raw ? s->raw_size : 0;
		uint32_t padded = (uint32_t)(((uint64_t)size + 4 + 7) / 8 * 8 - 4);
		put_u32(&b, padded);
		if (size)
			put(&b, s->raw, size);
		put_zeros(&b, padded - size);
	}
	if (st & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT))
		put_u64(&b, s->weight);
	if (st & PERF_SAMPLE_DATA_SRC)
		put_u64(&b, s->data_src);
	if (st & PERF_SAMPLE_TRANSACTION)
		put_u64(&b, s->transaction);
	if (st & PERF_SAMPLE_PHYS_ADDR)
		put_u64(&b, s->phys_addr);
	if (st & PERF_SAMPLE_CGROUP)
		put_u64(&b, s->cgroup);
	if (st & PERF_SAMPLE_DATA_PAGE_SIZE)
		put_u64(&b, s->data_page_size);
	if (st & PERF_SAMPLE_CODE_PAGE_SIZE)
		put_u64(&b, s->code_page_size);
	return finish_record(w, &b, err);
}

/* ---- features ---- */

static void feature_string(struct buf *b, const char *s) { put_string(b, s); }

static void feature_cmdline(struct buf *b, bool anonymous)
{
	char args[4096];
	size_t n = 0;
	FILE *f = anonymous ? NULL : fopen("/proc/self/cmdline", "r");
	if (f) {
		n = fread(args, 1, sizeof args - 1, f);
		fclose(f);
	}
	args[n] = '\0';
	uint32_t count = 0;
	for (size_t i = 0; i < n; i += strlen(args + i) + 1)
		count++;
	put_u32(b, count);
	for (size_t i = 0; i < n; i += strlen(args + i) + 1)
		put_string(b, args + i);
}

static void feature_event_desc(const struct pb_perfdata_writer *w, struct buf *b)
{
	put_u32(b, (uint32_t)w->nevents);
	put_u32(b, w->attr_size);
	for (size_t i = 0; i < w->nevents; i++) {
		struct perf_event_attr a = w->events[i].attr;
		a.size = w->attr_size;
		put(b, &a, w->attr_size);
		put_u32(b, (uint32_t)w->events[i].nids);
		put_string(b, w->events[i].name);
		put(b, w->events[i].ids, w->events[i].nids * 8);
	}
}

static uint64_t total_mem_kb(void)
{
	char v[64] = "";
	read_line_value("/proc/meminfo", "MemTotal", v, sizeof v);
	return strtoull(v, NULL, 10);
}

/* The GNU build-id note of an ELF file; its length, 0 when it has none or is unreadable. */
static size_t file_build_id(const char *path, uint8_t *id, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	elf_version(EV_CURRENT);
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	const void *bits = NULL;
	ssize_t n = elf ? dwelf_elf_gnu_build_id(elf, &bits) : -1;
	size_t len = n > 0 && (size_t)n <= cap ? (size_t)n : 0;
	if (len)
		memcpy(id, bits, len);
	if (elf)
		elf_end(elf);
	close(fd);
	return len;
}

/* HEADER_BUILD_ID: one build_id_event per mapped file (perf's struct
 * perf_record_header_build_id: header, pid, 20 bytes of id padded to 24 with its size in the
 * 21st, the file name padded to 64), so perf finds the right symbols, or says they changed. */
static void feature_build_ids(const struct pb_perfdata_writer *w, struct buf *b)
{
	for (size_t i = 0; i < w->nfiles; i++) {
		uint8_t id[24] = {0};
		size_t len = file_build_id(w->files[i], id, 20);
		if (!len)
			continue;
		id[20] = (uint8_t)len;
		size_t name = strlen(w->files[i]) + 1;
		size_t padded = (name + BUILD_ID_NAME_ALIGN - 1) / BUILD_ID_NAME_ALIGN *
				BUILD_ID_NAME_ALIGN;
		uint16_t misc = PERF_RECORD_MISC_USER | (1u << 15); /* ..._BUILD_ID_SIZE */
		uint16_t size = (uint16_t)(8 + 4 + 24 + padded);
		put_u32(b, 0);
		put(b, &misc, 2);
		put(b, &size, 2);
		put_u32(b, w->file_pid[i]);
		put(b, id, sizeof id);
		put(b, w->files[i], name);
		put_zeros(b, padded - name);
	}
}

static void build_feature(const struct pb_perfdata_writer *w, unsigned bit, struct buf *b)
{
	struct utsname u;
	if (uname(&u))
		memset(&u, 0, sizeof u);
	switch (bit) {
	case PB_FEAT_BUILD_ID: feature_build_ids(w, b); break;
	case PB_FEAT_HOSTNAME: feature_string(b, w->anonymous ? "" : u.nodename); break;
	case PB_FEAT_OSRELEASE: feature_string(b, u.release); break;
	case PB_FEAT_VERSION: feature_string(b, "pesbench-" PB_VERSION); break;
	case PB_FEAT_ARCH: feature_string(b, u.machine); break;
	case PB_FEAT_NRCPUS: {
		long conf = sysconf(_SC_NPROCESSORS_CONF), onln = sysconf(_SC_NPROCESSORS_ONLN);
		put_u32(b, conf > 0 ? (uint32_t)conf : 1);
		put_u32(b, onln > 0 ? (uint32_t)onln : 1);
		break;
	}
	case PB_FEAT_CPUDESC: feature_string(b, w->cpudesc); break;
	case PB_FEAT_CPUID: feature_string(b, w->cpuid); break;
	case PB_FEAT_TOTAL_MEM: put_u64(b, w->anonymous ? 0 : total_mem_kb()); break;
	case PB_FEAT_CMDLINE: feature_cmdline(b, w->anonymous); break;
	case PB_FEAT_EVENT_DESC: feature_event_desc(w, b); break;
	case PB_FEAT_PMU_MAPPINGS:
		put_u32(b, (uint32_t)w->npmus);
		for (size_t i = 0; i < w->npmus; i++) {
			put_u32(b, w->pmus[i].type);
			put_string(b, w->pmus[i].name);
		}
		break;
	}
}

static void free_writer(struct pb_perfdata_writer *w)
{
	for (size_t i = 0; i < w->nevents; i++)
		free(w->events[i].ids);
	for (size_t i = 0; i < w->nfiles; i++)
		free(w->files[i]);
	free(w->path);
	free(w->tmp_path);
	free(w);
}

void pb_perfdata_writer_abort(struct pb_perfdata_writer *w)
{
	if (!w)
		return;
	if (w->f)
		fclose(w->f);
	if (w->tmp_path)
		unlink(w->tmp_path);
	free_writer(w);
}

int pb_perfdata_writer_close(struct pb_perfdata_writer *w, struct pb_error *err)
{
	static const unsigned features[] = {
		PB_FEAT_BUILD_ID, PB_FEAT_HOSTNAME, PB_FEAT_OSRELEASE, PB_FEAT_VERSION,
		PB_FEAT_ARCH, PB_FEAT_NRCPUS, PB_FEAT_CPUDESC, PB_FEAT_CPUID, PB_FEAT_TOTAL_MEM,
		PB_FEAT_CMDLINE, PB_FEAT_EVENT_DESC, PB_FEAT_PMU_MAPPINGS};
	const size_t nfeat = PB_ARRAY_SIZE(features);
	if (start(w, err))
		goto fail;
	/* Feature table right after the data section, then the payloads. */
	uint64_t table = w->data_offset + w->data_bytes;
	uint64_t at = table + nfeat * 16;
	struct buf sections = {0}, payloads = {0};
	uint64_t bitmap[PB_FEAT_BITS / 64] = {0};
	for (size_t i = 0; i < nfeat; i++) {
		size_t before = payloads.len;
		build_feature(w, features[i], &payloads);
		put_u64(&sections, at + before);
		put_u64(&sections, payloads.len - before);
		bitmap[features[i] / 64] |= UINT64_C(1) << (features[i] % 64);
	}
	if (sections.oom || payloads.oom) {
		free(sections.p);
		free(payloads.p);
		pb_fail(err, PB_EXIT_FAILURE, ENOMEM, "out of memory");
		goto fail;
	}
	int rc = write_all(w, sections.p, sections.len, err);
	if (!rc)
		rc = write_all(w, payloads.p, payloads.len, err);
	free(sections.p);
	free(payloads.p);
	if (rc)
		goto fail;

	struct buf h = {0};
	put_u64(&h, UINT64_C(0x32454c4946524550)); /* "PERFILE2" */
	put_u64(&h, FILE_HEADER_SIZE);
	put_u64(&h, w->attr_size + 16);
	put_u64(&h, w->attrs_offset);
	put_u64(&h, w->nevents * (uint64_t)(w->attr_size + 16));
	put_u64(&h, w->data_offset);
	put_u64(&h, w->data_bytes);
	put_zeros(&h, 16); /* event_types: unused since perf 3.x */
	put(&h, bitmap, sizeof bitmap);
	if (h.oom || fseeko(w->f, 0, SEEK_SET) || fwrite(h.p, 1, h.len, w->f) != h.len) {
		free(h.p);
		io_fail(w, err, "header");
		goto fail;
	}
	free(h.p);
	if (fflush(w->f) || fsync(fileno(w->f))) {
		io_fail(w, err, "flush");
		goto fail;
	}
	if (fclose(w->f)) {
		w->f = NULL;
		io_fail(w, err, "close");
		goto fail;
	}
	w->f = NULL;
	if (rename(w->tmp_path, w->path)) {
		io_fail(w, err, "rename");
		goto fail;
	}
	free_writer(w);
	return 0;
fail:
	pb_perfdata_writer_abort(w);
	return -1;
}
