/* The seam: the only code that talks to the perf_event kernel interface (and pins threads, so
 * that a test can refuse a CPU as a cgroup would).
 * Tests install a fake kernel with pb_sys_install(); everything else calls pb_sys(). */
#ifndef PB_SYS_H
#define PB_SYS_H

#include <linux/perf_event.h>
#include <sched.h>
#include <stddef.h>
#include <sys/types.h>

struct pb_sys {
	int (*perf_event_open)(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
			       unsigned long flags);
	int (*ioctl)(int fd, unsigned long request, unsigned long arg);
	void *(*mmap)(void *addr, size_t length, int prot, int flags, int fd, off_t offset);
	int (*munmap)(void *addr, size_t length);
	ssize_t (*read)(int fd, void *buf, size_t count);
	int (*close)(int fd);
	int (*fcntl)(int fd, int cmd, unsigned long arg);
	int (*sched_setaffinity)(pid_t pid, size_t size, const cpu_set_t *set);
};

/* The table in force (the real kernel unless a test installed another). */
const struct pb_sys *pb_sys(void);
/* Installs a table; NULL restores the real kernel. Returns the previous table. */
const struct pb_sys *pb_sys_install(const struct pb_sys *table);
extern const struct pb_sys pb_sys_linux;

#endif
