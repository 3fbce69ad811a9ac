/* Test-only: perf events whose samples cannot be routed to a thread as signals —
 * fcntl(F_SETSIG) fails with EINVAL — so a facility that passes its self-test fails the one it
 * runs again with a signal per sample (--delivery signal). tests/cli_run.sh runs a suite with
 * this library in LD_PRELOAD to see how a run says that an experiment failed on a facility.
 * Never linked into pesbench itself. */

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>

typedef int (*fcntl_fn)(int fd, int cmd, ...);

static int refuse_setsig(const char *name, int fd, int cmd, va_list ap)
{
	unsigned long arg = va_arg(ap, unsigned long);
	if (cmd == F_SETSIG) {
		errno = EINVAL;
		return -1;
	}
	fcntl_fn real = (fcntl_fn)dlsym(RTLD_NEXT, name);
	return real(fd, cmd, arg);
}

int fcntl(int fd, int cmd, ...)
{
	va_list ap;
	va_start(ap, cmd);
	int rc = refuse_setsig("fcntl", fd, cmd, ap);
	va_end(ap);
	return rc;
}

int fcntl64(int fd, int cmd, ...)
{
	va_list ap;
	va_start(ap, cmd);
	int rc = refuse_setsig("fcntl64", fd, cmd, ap);
	va_end(ap);
	return rc;
}
