#include "sys/sys.h"

#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

static int linux_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu, int group_fd,
				 unsigned long flags)
{
	return (int)syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, flags);
}

static int linux_ioctl(int fd, unsigned long request, unsigned long arg)
{
	return ioctl(fd, request, arg);
}

static int linux_fcntl(int fd, int cmd, unsigned long arg)
{
	return fcntl(fd, cmd, arg);
}

static int linux_sched_setaffinity(pid_t pid, size_t size, const cpu_set_t *set)
{
	return sched_setaffinity(pid, size, set);
}

const struct pb_sys pb_sys_linux = {
	.perf_event_open = linux_perf_event_open,
	.ioctl = linux_ioctl,
	.mmap = mmap,
	.munmap = munmap,
	.read = read,
	.close = close,
	.fcntl = linux_fcntl,
	.sched_setaffinity = linux_sched_setaffinity,
};

static const struct pb_sys *installed = &pb_sys_linux;

const struct pb_sys *pb_sys(void)
{
	return installed;
}

const struct pb_sys *pb_sys_install(const struct pb_sys *table)
{
	const struct pb_sys *previous = installed;
	installed = table ? table : &pb_sys_linux;
	return previous;
}
