/* A fake perf_event kernel behind the sys seam. Tests script what each event's ring receives
 * and what read() returns; the session and ring code run unchanged on top. */
#ifndef PB_FAKE_KERNEL_H
#define PB_FAKE_KERNEL_H

#include "ring/record.h"
#include "sys/sys.h"

#include <stdbool.h>
#include <stdint.h>

#define FAKE_MAX_EVENTS 1024
#define FAKE_FD_BASE 1000

struct fake_event {
	int fd;
	struct perf_event_attr attr;
	pid_t pid;
	int cpu, group_fd;
	bool enabled;
	unsigned enables, disables, resets;
	int owner_tid, async_signal;      /* from fcntl F_SETOWN_EX / F_SETSIG */
	bool async;                       /* O_ASYNC set */
	uint8_t *map;                     /* 1 + data_pages pages */
	size_t map_size;
	unsigned data_pages;
	uint64_t count, time_enabled, time_running;   /* what read() reports */
	uint64_t lost;                    /* samples dropped because the ring was full */
	uint64_t lost_pending;            /* not yet announced by a PERF_RECORD_LOST */
	uint64_t id;
	bool closed;                      /* close() was called; the entry stays for inspection */
	uint8_t *aux_map;                 /* AUX area, when mapped at the control page's aux_offset */
	size_t aux_size;
};

/* Installs the fake kernel (resetting it) / restores the real one. */
void fake_kernel_install(void);
void fake_kernel_uninstall(void);
/* The next perf_event_open fails with this errno (once). */
void fake_kernel_fail_next_open(int err);
/* The same after this many opens succeed. */
void fake_kernel_fail_open_after(unsigned opens, int err);
/* The next ioctl on a fake event returns -1 with this errno (once), without acting. */
void fake_kernel_fail_next_ioctl(int err);
/* The same for the next ioctl on fd (-1: any) with request (0: any, else e.g.
 * PERF_EVENT_IOC_DISABLE). */
void fake_kernel_fail_ioctl(int fd, unsigned long request, int err);
/* The next read of a fake event returns its read_format layout less its last u64 (once). */
void fake_kernel_short_read_next(void);
/* sched_setaffinity does not touch the real threads: it succeeds, unless the set holds this
 * CPU, which fails with err (as a cgroup's cpuset refuses a CPU); cpu -1 refuses none. */
void fake_kernel_refuse_cpu(int cpu, int err);
/* Opens asking for a precise_ip above level fail with EOPNOTSUPP (as a kernel whose PMU
 * cannot give that level); -1 accepts every level. Reset by install. */
void fake_kernel_max_precise(int level);
struct fake_event *fake_kernel_event(int fd);
unsigned fake_kernel_nevents(void);
struct fake_event *fake_kernel_event_at(unsigned index);
/* Called when an event is disabled (end of the measured region): the script fills its ring. */
void fake_kernel_on_disable(void (*fn)(struct fake_event *ev, void *ctx), void *ctx);

/* Writes one record as the kernel would: if the ring has no room the record is dropped and
 * counted in lost/lost_pending; a PERF_RECORD_LOST is written first when room allows. */
bool fake_ring_write(struct fake_event *ev, const void *record, size_t len);

/* Serialises a sample for ev's attr (sample_type, read_format, regs masks). Returns its size. */
size_t fake_build_sample(uint8_t *buf, size_t cap, const struct perf_event_attr *attr,
			 const struct pb_sample *s);
size_t fake_build_lost(uint8_t *buf, uint64_t id, uint64_t lost);
size_t fake_build_throttle(uint8_t *buf, bool unthrottle, uint64_t time, uint64_t id);

/* The AUX area as the kernel fills it: copies len bytes at aux_head (wrapping at the end of the
 * area) and announces them with a PERF_RECORD_AUX {aux_offset = old aux_head, aux_size, flags}
 * in the data ring, then advances aux_head. Like the kernel in its default mode, it never writes
 * over bytes before aux_tail: what does not fit is dropped and the record is flagged
 * PERF_AUX_FLAG_TRUNCATED. Returns the bytes written, or -1 when there is no AUX area or the
 * data ring had no room for the record. */
long fake_aux_write(struct fake_event *ev, const void *bytes, size_t len, uint64_t flags);
/* Moves aux_head and aux_tail to pos (free-running): the state after a reader has consumed
 * everything up to pos, e.g. to place the next chunk across the end of the area. */
void fake_aux_seek(struct fake_event *ev, uint64_t pos);

/* The system page size the fake rings are built with. */
size_t fake_page_size(void);
/* Bytes the kernel can keep unread in a data area of data_size: one byte less than the area
 * (CIRC_SPACE), so with 8-byte records the last 8 bytes always stay free. */
uint64_t fake_ring_capacity(uint64_t data_size);

#endif
