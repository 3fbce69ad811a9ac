/* A fake perf_event kernel behind the sys seam (see fake_kernel.h). It follows the kernel's
 * documented behaviour where the code under test can observe it: ring layout, the lazy
 * PERF_RECORD_LOST, the one-byte-short ring capacity, read_format layouts, group reads.
 * Calls on file descriptors that are not fake go to the real kernel, so a test may mix both. */
#include "fake_kernel.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

static struct fake_event events[FAKE_MAX_EVENTS];
static unsigned nevents;
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static int fail_next_errno;
static unsigned fail_open_skip;            /* opens to let through before fail_next_errno */
/* Scripted failures, consumed by whichever worker thread gets there first. */
static int fail_ioctl_errno;
static int fail_ioctl_fd = -1;             /* -1: any event */
static unsigned long fail_ioctl_request;   /* 0: any request */
static bool short_read_next;
static int refused_cpu = -1, refused_cpu_errno;
/* precise_ip above this is refused with EOPNOTSUPP, as x86_pmu_hw_config() does; -1: none */
static int max_precise_accepted = -1;
static void (*disable_script)(struct fake_event *ev, void *ctx);
static void *disable_ctx;
static uint64_t next_id = 1000;
/* Data areas mapped more than once share one buffer, like the kernel's rb refcount. */
static unsigned map_users[FAKE_MAX_EVENTS];

size_t fake_page_size(void)
{
	long p = sysconf(_SC_PAGESIZE);
	return p > 0 ? (size_t)p : 4096;
}

uint64_t fake_ring_capacity(uint64_t data_size)
{
	return data_size - 1;
}

static bool is_power_of_two(uint64_t n)
{
	return n != 0 && (n & (n - 1)) == 0;
}

static struct fake_event *lookup(int fd)
{
	if (fd < FAKE_FD_BASE || fd >= FAKE_FD_BASE + FAKE_MAX_EVENTS)
		return NULL;
	unsigned i = (unsigned)(fd - FAKE_FD_BASE);
	if (i >= __atomic_load_n(&nevents, __ATOMIC_ACQUIRE))
		return NULL;
	return &events[i];
}

static bool is_fake_fd(int fd)
{
	return fd >= FAKE_FD_BASE && fd < FAKE_FD_BASE + FAKE_MAX_EVENTS;
}

/* A live fake event, or NULL with errno = EBADF. */
static struct fake_event *live(int fd)
{
	struct fake_event *ev = lookup(fd);
	if (!ev || ev->closed) {
		errno = EBADF;
		return NULL;
	}
	return ev;
}

struct fake_event *fake_kernel_event(int fd)
{
	return lookup(fd);
}

unsigned fake_kernel_nevents(void)
{
	return __atomic_load_n(&nevents, __ATOMIC_ACQUIRE);
}

struct fake_event *fake_kernel_event_at(unsigned index)
{
	return index < fake_kernel_nevents() ? &events[index] : NULL;
}

void fake_kernel_fail_next_open(int err)
{
	fake_kernel_fail_open_after(0, err);
}

void fake_kernel_fail_open_after(unsigned opens, int err)
{
	fail_open_skip = opens;
	fail_next_errno = err;
}

void fake_kernel_fail_next_ioctl(int err)
{
	fake_kernel_fail_ioctl(-1, 0, err);
}

void fake_kernel_fail_ioctl(int fd, unsigned long request, int err)
{
	pthread_mutex_lock(&table_lock);
	fail_ioctl_fd = fd;
	fail_ioctl_request = request;
	fail_ioctl_errno = err;
	pthread_mutex_unlock(&table_lock);
}

void fake_kernel_short_read_next(void)
{
	pthread_mutex_lock(&table_lock);
	short_read_next = true;
	pthread_mutex_unlock(&table_lock);
}

void fake_kernel_max_precise(int level)
{
	max_precise_accepted = level;
}

void fake_kernel_refuse_cpu(int cpu, int err)
{
	pthread_mutex_lock(&table_lock);
	refused_cpu = cpu;
	refused_cpu_errno = err;
	pthread_mutex_unlock(&table_lock);
}

/* True (once) when a scripted failure applies to this call; errno is then set. */
static bool ioctl_fails(int fd, unsigned long request)
{
	pthread_mutex_lock(&table_lock);
	bool fail = fail_ioctl_errno && (fail_ioctl_fd < 0 || fail_ioctl_fd == fd) &&
		    (!fail_ioctl_request || fail_ioctl_request == request);
	if (fail) {
		errno = fail_ioctl_errno;
		fail_ioctl_errno = 0;
	}
	pthread_mutex_unlock(&table_lock);
	return fail;
}

static bool take_short_read(void)
{
	pthread_mutex_lock(&table_lock);
	bool take = short_read_next;
	short_read_next = false;
	pthread_mutex_unlock(&table_lock);
	return take;
}

void fake_kernel_on_disable(void (*fn)(struct fake_event *ev, void *ctx), void *ctx)
{
	disable_script = fn;
	disable_ctx = ctx;
}

static int fake_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
		     unsigned long flags)
{
	(void)flags;
	if (fail_next_errno && fail_open_skip) {
		fail_open_skip--;
	} else if (fail_next_errno) {
		errno = fail_next_errno;
		fail_next_errno = 0;
		return -1;
	}
	if (!attr) {
		errno = EFAULT;
		return -1;
	}
	if (max_precise_accepted >= 0 && attr->precise_ip > (unsigned)max_precise_accepted) {
		errno = EOPNOTSUPP;
		return -1;
	}
	if (group_fd != -1 && !live(group_fd))
		return -1;
	pthread_mutex_lock(&table_lock);
	if (nevents == FAKE_MAX_EVENTS) {
		pthread_mutex_unlock(&table_lock);
		errno = EMFILE;
		return -1;
	}
	struct fake_event *ev = &events[nevents];
	memset(ev, 0, sizeof(*ev));
	ev->fd = FAKE_FD_BASE + (int)nevents;
	ev->attr = *attr;
	ev->pid = pid;
	ev->cpu = cpu;
	ev->group_fd = group_fd;
	ev->enabled = !attr->disabled;
	ev->owner_tid = 0;
	ev->id = next_id++;
	map_users[nevents] = 0;
	__atomic_store_n(&nevents, nevents + 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&table_lock);
	return ev->fd;
}

static struct fake_event *leader_of(struct fake_event *ev)
{
	struct fake_event *leader = ev->group_fd == -1 ? NULL : lookup(ev->group_fd);
	return leader ? leader : ev;
}

static void apply(struct fake_event *ev, unsigned long request, bool *run_script)
{
	switch (request) {
	case PERF_EVENT_IOC_ENABLE:
		ev->enabled = true;
		ev->enables++;
		break;
	case PERF_EVENT_IOC_DISABLE:
		ev->enabled = false;
		ev->disables++;
		*run_script = true;
		break;
	case PERF_EVENT_IOC_RESET:
		ev->count = 0;
		ev->resets++;
		break;
	}
}

static void run_disable_script(struct fake_event *ev)
{
	if (disable_script)
		disable_script(ev, disable_ctx);
}

/* ENABLE/DISABLE/RESET, on the event or, with PERF_IOC_FLAG_GROUP, on its whole group. */
static int group_ioctl(struct fake_event *ev, unsigned long request, unsigned long arg)
{
	if (!(arg & PERF_IOC_FLAG_GROUP)) {
		bool script = false;
		apply(ev, request, &script);
		if (script)
			run_disable_script(ev);
		return 0;
	}
	struct fake_event *leader = leader_of(ev);
	unsigned n = fake_kernel_nevents();
	for (unsigned i = 0; i < n; i++) {
		struct fake_event *e = &events[i];
		if (e->closed || (e != leader && e->group_fd != leader->fd))
			continue;
		bool script = false;
		apply(e, request, &script);
		if (script)
			run_disable_script(e);
	}
	return 0;
}

static int fake_ioctl(int fd, unsigned long request, unsigned long arg)
{
	if (!is_fake_fd(fd))
		return pb_sys_linux.ioctl(fd, request, arg);
	struct fake_event *ev = live(fd);
	if (!ev || ioctl_fails(fd, request))
		return -1;
	switch (request) {
	case PERF_EVENT_IOC_ENABLE:
	case PERF_EVENT_IOC_DISABLE:
	case PERF_EVENT_IOC_RESET:
		return group_ioctl(ev, request, arg);
	case PERF_EVENT_IOC_REFRESH:
		/* Refresh re-arms the overflow limit and enables the event. */
		if (ev->attr.inherit || (int)arg < 0) {
			errno = EINVAL;
			return -1;
		}
		ev->enabled = true;
		ev->enables++;
		return 0;
	case PERF_EVENT_IOC_ID:
		if (!arg) {
			errno = EFAULT;
			return -1;
		}
		memcpy((void *)arg, &ev->id, sizeof(ev->id));
		return 0;
	case PERF_EVENT_IOC_PERIOD: {
		uint64_t period;
		if (!arg) {
			errno = EFAULT;
			return -1;
		}
		memcpy(&period, (const void *)arg, sizeof(period));
		if (!ev->attr.sample_period || ev->attr.freq || period == 0 ||
		    (period & (1ULL << 63))) {
			errno = EINVAL;
			return -1;
		}
		ev->attr.sample_period = period;
		return 0;
	}
	case PERF_EVENT_IOC_MODIFY_ATTRIBUTES: {
		const struct perf_event_attr *a = (const struct perf_event_attr *)arg;
		if (!a) {
			errno = EFAULT;
			return -1;
		}
		if (a->type != ev->attr.type) {
			errno = EINVAL;
			return -1;
		}
		if (ev->attr.type != PERF_TYPE_BREAKPOINT) {
			errno = EOPNOTSUPP;
			return -1;
		}
		ev->attr.bp_addr = a->bp_addr;
		ev->attr.bp_type = a->bp_type;
		ev->attr.bp_len = a->bp_len;
		return 0;
	}
	default:
		errno = ENOTTY;
		return -1;
	}
}

static void *aligned_zeroed(size_t size)
{
	void *p = aligned_alloc(fake_page_size(), size);
	if (p)
		memset(p, 0, size);
	return p;
}

static void *fake_mmap(void *addr, size_t length, int prot, int flags, int fd, off_t offset)
{
	if (!is_fake_fd(fd))
		return pb_sys_linux.mmap(addr, length, prot, flags, fd, offset);
	struct fake_event *ev = live(fd);
	if (!ev)
		return MAP_FAILED;
	size_t page = fake_page_size();
	if (!(flags & MAP_SHARED) || length % page != 0 || length == 0) {
		errno = EINVAL;
		return MAP_FAILED;
	}
	pthread_mutex_lock(&table_lock);
	unsigned index = (unsigned)(ev->fd - FAKE_FD_BASE);
	void *result = MAP_FAILED;
	if (offset == 0) {
		size_t data_pages = length / page - 1;
		if (!is_power_of_two(data_pages) || (ev->map && ev->map_size != length)) {
			errno = EINVAL;
		} else if (ev->map) {
			map_users[index]++;
			result = ev->map;
		} else if (!(ev->map = aligned_zeroed(length))) {
			errno = ENOMEM;
		} else {
			struct perf_event_mmap_page *meta = (void *)ev->map;
			ev->map_size = length;
			ev->data_pages = (unsigned)data_pages;
			meta->version = 0;
			meta->compat_version = 0;
			meta->data_offset = page;
			meta->data_size = data_pages * page;
			map_users[index] = 1;
			result = ev->map;
		}
	} else {
		/* The AUX area: only where the control page says, and only after the data area. */
		struct perf_event_mmap_page *meta = (void *)ev->map;
		if (!ev->map || ev->aux_map || meta->aux_offset != (uint64_t)offset ||
		    meta->aux_size != length || !is_power_of_two(length / page) ||
		    (uint64_t)offset < meta->data_offset + meta->data_size) {
			errno = EINVAL;
		} else if (!(ev->aux_map = aligned_zeroed(length))) {
			errno = ENOMEM;
		} else {
			ev->aux_size = length;
			result = ev->aux_map;
		}
	}
	pthread_mutex_unlock(&table_lock);
	return result;
}

static int fake_munmap(void *addr, size_t length)
{
	pthread_mutex_lock(&table_lock);
	for (unsigned i = 0; i < nevents; i++) {
		struct fake_event *ev = &events[i];
		if (ev->map && addr == ev->map) {
			if (--map_users[i] == 0) {
				free(ev->map);
				ev->map = NULL;
			}
			pthread_mutex_unlock(&table_lock);
			return 0;
		}
		if (ev->aux_map && addr == ev->aux_map) {
			free(ev->aux_map);
			ev->aux_map = NULL;
			ev->aux_size = 0;
			pthread_mutex_unlock(&table_lock);
			return 0;
		}
	}
	pthread_mutex_unlock(&table_lock);
	return pb_sys_linux.munmap(addr, length);
}

/* Serialisation into a bounded buffer; `overflow` latches so callers check once at the end. */
struct writer {
	uint8_t *buf;
	size_t cap, pos;
	bool overflow;
};

static void put_bytes(struct writer *w, const void *src, size_t n)
{
	if (w->overflow || n > w->cap - w->pos) {
		w->overflow = true;
		return;
	}
	if (src)
		memcpy(w->buf + w->pos, src, n);
	else
		memset(w->buf + w->pos, 0, n);
	w->pos += n;
}

static void put_u64(struct writer *w, uint64_t v)
{
	put_bytes(w, &v, 8);
}

static void put_u32(struct writer *w, uint32_t v)
{
	put_bytes(w, &v, 4);
}

static void put_pad8(struct writer *w)
{
	put_bytes(w, NULL, (8 - w->pos % 8) % 8);
}

/* The read() / PERF_SAMPLE_READ layout of one value set. */
static void put_read(struct writer *w, uint64_t read_format, const struct pb_read *r)
{
	if (read_format & PERF_FORMAT_GROUP) {
		put_u64(w, r->nr);
		if (read_format & PERF_FORMAT_TOTAL_TIME_ENABLED)
			put_u64(w, r->time_enabled);
		if (read_format & PERF_FORMAT_TOTAL_TIME_RUNNING)
			put_u64(w, r->time_running);
		for (uint64_t i = 0; i < r->nr && i < PB_MAX_READ_VALUES; i++) {
			put_u64(w, r->values[i].value);
			if (read_format & PERF_FORMAT_ID)
				put_u64(w, r->values[i].id);
			if (read_format & PERF_FORMAT_LOST)
				put_u64(w, r->values[i].lost);
		}
	} else {
		put_u64(w, r->values[0].value);
		if (read_format & PERF_FORMAT_TOTAL_TIME_ENABLED)
			put_u64(w, r->time_enabled);
		if (read_format & PERF_FORMAT_TOTAL_TIME_RUNNING)
			put_u64(w, r->time_running);
		if (read_format & PERF_FORMAT_ID)
			put_u64(w, r->values[0].id);
		if (read_format & PERF_FORMAT_LOST)
			put_u64(w, r->values[0].lost);
	}
}

static ssize_t fake_read(int fd, void *buf, size_t count)
{
	if (!is_fake_fd(fd))
		return pb_sys_linux.read(fd, buf, count);
	struct fake_event *ev = live(fd);
	if (!ev)
		return -1;
	struct pb_read r;
	memset(&r, 0, sizeof(r));
	uint64_t rf = ev->attr.read_format;
	if (rf & PERF_FORMAT_GROUP) {
		/* A group read reports the leader first, then its members in creation order. */
		struct fake_event *leader = leader_of(ev);
		r.time_enabled = leader->time_enabled;
		r.time_running = leader->time_running;
		unsigned n = fake_kernel_nevents();
		for (unsigned i = 0; i < n; i++) {
			struct fake_event *e = &events[i];
			if (e->closed || (e != leader && e->group_fd != leader->fd))
				continue;
			if (r.nr == PB_MAX_READ_VALUES) {
				errno = E2BIG;
				return -1;
			}
			r.values[r.nr].value = e->count;
			r.values[r.nr].id = e->id;
			r.values[r.nr].lost = e->lost;
			r.nr++;
		}
	} else {
		r.nr = 1;
		r.time_enabled = ev->time_enabled;
		r.time_running = ev->time_running;
		r.values[0].value = ev->count;
		r.values[0].id = ev->id;
		r.values[0].lost = ev->lost;
	}
	uint8_t tmp[8 * (3 + 3 * PB_MAX_READ_VALUES)];
	struct writer w = {.buf = tmp, .cap = sizeof(tmp)};
	put_read(&w, rf, &r);
	if (w.pos > count) {
		errno = ENOSPC;
		return -1;
	}
	size_t n = take_short_read() ? w.pos - 8 : w.pos;
	memcpy(buf, tmp, n);
	return (ssize_t)n;
}

static int fake_close(int fd)
{
	if (!is_fake_fd(fd))
		return pb_sys_linux.close(fd);
	struct fake_event *ev = live(fd);
	if (!ev)
		return -1;
	/* Like the kernel, a mapping outlives its fd: the buffer goes at munmap (or at reset). */
	ev->closed = true;
	ev->enabled = false;
	return 0;
}

static int fake_fcntl(int fd, int cmd, unsigned long arg)
{
	if (!is_fake_fd(fd))
		return pb_sys_linux.fcntl(fd, cmd, arg);
	struct fake_event *ev = live(fd);
	if (!ev)
		return -1;
	switch (cmd) {
	case F_SETOWN_EX: {
		struct f_owner_ex owner;
		if (!arg) {
			errno = EFAULT;
			return -1;
		}
		memcpy(&owner, (const void *)arg, sizeof(owner));
		ev->owner_tid = owner.pid;
		return 0;
	}
	case F_GETOWN_EX: {
		struct f_owner_ex owner = {.type = F_OWNER_TID, .pid = ev->owner_tid};
		if (!arg) {
			errno = EFAULT;
			return -1;
		}
		memcpy((void *)arg, &owner, sizeof(owner));
		return 0;
	}
	case F_SETOWN:
		ev->owner_tid = (int)arg;
		return 0;
	case F_GETOWN:
		return ev->owner_tid;
	case F_SETSIG:
		ev->async_signal = (int)arg;
		return 0;
	case F_GETSIG:
		return ev->async_signal;
	case F_SETFL:
		ev->async = (arg & O_ASYNC) != 0;
		return 0;
	case F_GETFL:
		return O_RDWR | (ev->async ? O_ASYNC : 0);
	default:
		errno = EINVAL;
		return -1;
	}
}

static int fake_sched_setaffinity(pid_t pid, size_t size, const cpu_set_t *set)
{
	(void)pid;
	pthread_mutex_lock(&table_lock);
	int cpu = refused_cpu, err = refused_cpu_errno;
	pthread_mutex_unlock(&table_lock);
	if (cpu >= 0 && CPU_ISSET_S((size_t)cpu, size, set)) {
		errno = err;
		return -1;
	}
	return 0;
}

static const struct pb_sys fake_table = {
	.perf_event_open = fake_open,
	.ioctl = fake_ioctl,
	.mmap = fake_mmap,
	.munmap = fake_munmap,
	.read = fake_read,
	.close = fake_close,
	.fcntl = fake_fcntl,
	.sched_setaffinity = fake_sched_setaffinity,
};

static void reset(void)
{
	pthread_mutex_lock(&table_lock);
	for (unsigned i = 0; i < nevents; i++) {
		free(events[i].map);
		free(events[i].aux_map);
		memset(&events[i], 0, sizeof(events[i]));
		map_users[i] = 0;
	}
	__atomic_store_n(&nevents, 0, __ATOMIC_RELEASE);
	fail_next_errno = 0;
	fail_open_skip = 0;
	max_precise_accepted = -1;
	fail_ioctl_errno = 0;
	fail_ioctl_fd = -1;
	fail_ioctl_request = 0;
	short_read_next = false;
	refused_cpu = -1;
	refused_cpu_errno = 0;
	disable_script = NULL;
	disable_ctx = NULL;
	pthread_mutex_unlock(&table_lock);
}

void fake_kernel_install(void)
{
	reset();
	pb_sys_install(&fake_table);
}

void fake_kernel_uninstall(void)
{
	reset();
	pb_sys_install(NULL);
}

/* The sample_id block the kernel appends to non-sample records of this event. */
static void put_sample_id(struct writer *w, const struct fake_event *ev)
{
	uint64_t st = ev->attr.sample_type;
	if (!ev->attr.sample_id_all)
		return;
	uint32_t pid = ev->pid > 0 ? (uint32_t)ev->pid : 0;
	if (st & PERF_SAMPLE_TID) {
		put_u32(w, pid);
		put_u32(w, (uint32_t)ev->owner_tid);
	}
	if (st & PERF_SAMPLE_TIME)
		put_u64(w, 0);
	if (st & PERF_SAMPLE_ID)
		put_u64(w, ev->id);
	if (st & PERF_SAMPLE_STREAM_ID)
		put_u64(w, ev->id);
	if (st & PERF_SAMPLE_CPU) {
		put_u32(w, ev->cpu > 0 ? (uint32_t)ev->cpu : 0);
		put_u32(w, 0);
	}
	if (st & PERF_SAMPLE_IDENTIFIER)
		put_u64(w, ev->id);
}

static void put_header(struct writer *w, uint32_t type, uint16_t misc)
{
	struct perf_event_header h = {.type = type, .misc = misc, .size = 0};
	put_bytes(w, &h, sizeof(h));
}

/* Fills in header.size once the record is complete; 0 if it did not fit or exceeds 64 KiB. */
static size_t finish(struct writer *w)
{
	if (w->overflow || w->pos > UINT16_MAX)
		return 0;
	uint16_t size = (uint16_t)w->pos;
	memcpy(w->buf + offsetof(struct perf_event_header, size), &size, sizeof(size));
	return w->pos;
}

static void ring_put(struct fake_event *ev, uint64_t head, const void *src, size_t len)
{
	struct perf_event_mmap_page *meta = (void *)ev->map;
	uint8_t *data = ev->map + meta->data_offset;
	uint64_t size = meta->data_size;
	size_t off = (size_t)(head & (size - 1));
	size_t first = size - off < len ? size - off : len;
	memcpy(data + off, src, first);
	memcpy(data, (const uint8_t *)src + first, len - first);
}

bool fake_ring_write(struct fake_event *ev, const void *record, size_t len)
{
	if (!ev->map)
		return false; /* the kernel writes nothing, and counts nothing, without a buffer */
	struct perf_event_mmap_page *meta = (void *)ev->map;
	uint64_t size = meta->data_size;
	uint64_t head = meta->data_head;
	uint64_t tail = __atomic_load_n(&meta->data_tail, __ATOMIC_ACQUIRE);

	/* The kernel announces dropped records lazily: the LOST record rides in front of the next
	 * record that fits, and both must fit together. */
	uint8_t lost[64];
	size_t lost_len = 0;
	if (ev->lost_pending) {
		struct writer w = {.buf = lost, .cap = sizeof(lost)};
		put_header(&w, PERF_RECORD_LOST, 0);
		put_u64(&w, ev->id);
		put_u64(&w, ev->lost_pending);
		put_sample_id(&w, ev);
		lost_len = finish(&w);
	}
	uint64_t used = head - tail;
	if (used > fake_ring_capacity(size) || fake_ring_capacity(size) - used < lost_len + len) {
		ev->lost++;
		ev->lost_pending++;
		return false;
	}
	if (lost_len) {
		ring_put(ev, head, lost, lost_len);
		head += lost_len;
		ev->lost_pending = 0;
	}
	ring_put(ev, head, record, len);
	head += len;
	__atomic_store_n(&meta->data_head, head, __ATOMIC_RELEASE);
	return true;
}

static void put_regs(struct writer *w, uint64_t mask, const struct pb_regs *regs)
{
	put_u64(w, regs->abi);
	if (regs->abi == PERF_SAMPLE_REGS_ABI_NONE)
		return;
	unsigned n = (unsigned)__builtin_popcountll(mask);
	for (unsigned i = 0; i < n; i++)
		put_u64(w, i < PB_MAX_REGS ? regs->regs[i] : 0);
}

size_t fake_build_sample(uint8_t *buf, size_t cap, const struct perf_event_attr *attr,
			 const struct pb_sample *s)
{
	struct writer w = {.buf = buf, .cap = cap};
	uint64_t st = attr->sample_type;

	put_header(&w, PERF_RECORD_SAMPLE, s->misc);
	if (st & PERF_SAMPLE_IDENTIFIER)
		put_u64(&w, s->identifier);
	if (st & PERF_SAMPLE_IP)
		put_u64(&w, s->ip);
	if (st & PERF_SAMPLE_TID) {
		put_u32(&w, s->pid);
		put_u32(&w, s->tid);
	}
	if (st & PERF_SAMPLE_TIME)
		put_u64(&w, s->time);
	if (st & PERF_SAMPLE_ADDR)
		put_u64(&w, s->addr);
	if (st & PERF_SAMPLE_ID)
		put_u64(&w, s->id);
	if (st & PERF_SAMPLE_STREAM_ID)
		put_u64(&w, s->stream_id);
	if (st & PERF_SAMPLE_CPU) {
		put_u32(&w, s->cpu);
		put_u32(&w, 0);
	}
	if (st & PERF_SAMPLE_PERIOD)
		put_u64(&w, s->period);
	if (st & PERF_SAMPLE_READ)
		put_read(&w, attr->read_format, &s->read);
	if (st & PERF_SAMPLE_CALLCHAIN) {
		put_u64(&w, s->callchain_nr);
		put_bytes(&w, s->callchain, s->callchain_nr * 8);
	}
	if (st & PERF_SAMPLE_RAW) {
		size_t start = w.pos;
		put_u32(&w, s->raw_size);
		put_bytes(&w, s->raw, s->raw_size);
		put_bytes(&w, NULL, (8 - (w.pos - start) % 8) % 8);
	}
	if (st & PERF_SAMPLE_BRANCH_STACK) {
		put_u64(&w, s->branch_nr);
		if (attr->branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX)
			put_u64(&w, s->branch_hw_index);
		put_bytes(&w, s->branches, s->branch_nr * 24);
		if (attr->branch_sample_type & PB_SAMPLE_BRANCH_COUNTERS)
			put_bytes(&w, s->branch_counters, s->branch_nr * 8);
	}
	if (st & PERF_SAMPLE_REGS_USER)
		put_regs(&w, attr->sample_regs_user, &s->regs_user);
	if (st & PERF_SAMPLE_STACK_USER) {
		put_u64(&w, s->stack_user_size);
		if (s->stack_user_size) {
			put_bytes(&w, s->stack_user, s->stack_user_size);
			put_u64(&w, s->stack_user_dyn_size);
		}
	}
	if (st & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT))
		put_u64(&w, s->weight);
	if (st & PERF_SAMPLE_DATA_SRC)
		put_u64(&w, s->data_src);
	if (st & PERF_SAMPLE_TRANSACTION)
		put_u64(&w, s->transaction);
	if (st & PERF_SAMPLE_REGS_INTR)
		put_regs(&w, attr->sample_regs_intr, &s->regs_intr);
	if (st & PERF_SAMPLE_PHYS_ADDR)
		put_u64(&w, s->phys_addr);
	if (st & PERF_SAMPLE_CGROUP)
		put_u64(&w, s->cgroup);
	if (st & PERF_SAMPLE_DATA_PAGE_SIZE)
		put_u64(&w, s->data_page_size);
	if (st & PERF_SAMPLE_CODE_PAGE_SIZE)
		put_u64(&w, s->code_page_size);
	if (st & PERF_SAMPLE_AUX) {
		put_u64(&w, s->aux_size);
		put_bytes(&w, s->aux, s->aux_size);
	}
	/* Kernel records are whole u64s; odd stack or AUX sizes are padded at the end. */
	put_pad8(&w);
	return finish(&w);
}

size_t fake_build_lost(uint8_t *buf, uint64_t id, uint64_t lost)
{
	struct writer w = {.buf = buf, .cap = 24};
	put_header(&w, PERF_RECORD_LOST, 0);
	put_u64(&w, id);
	put_u64(&w, lost);
	return finish(&w);
}

size_t fake_build_throttle(uint8_t *buf, bool unthrottle, uint64_t time, uint64_t id)
{
	struct writer w = {.buf = buf, .cap = 32};
	put_header(&w, unthrottle ? PERF_RECORD_UNTHROTTLE : PERF_RECORD_THROTTLE, 0);
	put_u64(&w, time);
	put_u64(&w, id);
	put_u64(&w, id); /* stream_id: the event's own id unless inherited */
	return finish(&w);
}

long fake_aux_write(struct fake_event *ev, const void *bytes, size_t len, uint64_t flags)
{
	if (!ev->map || !ev->aux_map || !ev->aux_size)
		return -1;
	struct perf_event_mmap_page *meta = (void *)ev->map;
	uint64_t head = meta->aux_head;
	uint64_t tail = __atomic_load_n(&meta->aux_tail, __ATOMIC_ACQUIRE);
	uint64_t used = head - tail;
	uint64_t room = used < ev->aux_size ? ev->aux_size - used : 0;
	size_t n = len;
	if (n > room) {
		n = (size_t)room;
		flags |= PERF_AUX_FLAG_TRUNCATED;
	}
	size_t off = (size_t)(head & (ev->aux_size - 1));
	size_t first = ev->aux_size - off < n ? ev->aux_size - off : n;
	memcpy(ev->aux_map + off, bytes, first);
	memcpy(ev->aux_map, (const uint8_t *)bytes + first, n - first);

	uint8_t rec[128];
	struct writer w = {.buf = rec, .cap = sizeof(rec)};
	put_header(&w, PERF_RECORD_AUX, 0);
	put_u64(&w, head);
	put_u64(&w, n);
	put_u64(&w, flags);
	put_sample_id(&w, ev);
	size_t rec_len = finish(&w);
	/* The kernel publishes the data before the record that announces it. */
	__atomic_store_n(&meta->aux_head, head + n, __ATOMIC_RELEASE);
	if (!rec_len || !fake_ring_write(ev, rec, rec_len))
		return -1;
	return (long)n;
}

void fake_aux_seek(struct fake_event *ev, uint64_t pos)
{
	if (!ev->map)
		return;
	struct perf_event_mmap_page *meta = (void *)ev->map;
	meta->aux_head = pos;
	__atomic_store_n(&meta->aux_tail, pos, __ATOMIC_RELEASE);
}
