/* Test-only: makes debug-register breakpoints inert, as on the VM kind whose hypervisor never
 * delivers their traps: perf_event_open(PERF_TYPE_BREAKPOINT) succeeds and the event never
 * counts or samples. The CLI tests run once with this library in LD_PRELOAD, so that every
 * machine proves pesbench's behaviour on that kind. Never linked into pesbench itself.
 *
 * pesbench opens events with syscall(SYS_perf_event_open, ...); a breakpoint attr is replaced
 * by a dummy software event with the same sampling and read settings: a real fd that reads,
 * maps and signals like any event, and whose count stays 0. */

#include <dlfcn.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <string.h>
#include <sys/syscall.h>

typedef long (*syscall_fn)(long number, ...);

long syscall(long number, ...)
{
	static syscall_fn real;
	if (!real)
		real = (syscall_fn)dlsym(RTLD_NEXT, "syscall");
	va_list ap;
	va_start(ap, number);
	long a[6];
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (number == SYS_perf_event_open && a[0]) {
		const struct perf_event_attr *attr = (const struct perf_event_attr *)a[0];
		if (attr->type == PERF_TYPE_BREAKPOINT) {
			struct perf_event_attr dummy;
			memset(&dummy, 0, sizeof dummy);
			size_t size = attr->size && attr->size < sizeof dummy ? attr->size
									   : sizeof dummy;
			memcpy(&dummy, attr, size);
			dummy.size = sizeof dummy;
			dummy.type = PERF_TYPE_SOFTWARE;
			dummy.config = PERF_COUNT_SW_DUMMY;
			dummy.bp_type = 0;
			dummy.bp_addr = 0;
			dummy.bp_len = 0;
			return real(number, (long)&dummy, a[1], a[2], a[3], a[4]);
		}
	}
	return real(number, a[0], a[1], a[2], a[3], a[4], a[5]);
}
