/* One event of a session: its attr (the facility's part and the common part), opening it
 * with the error a user can act on, reading its counts, and the names and checks the session's
 * options share (delivery modes, ring sizes). All kernel calls go through the sys seam. */
#include "session/session.h"

#include "facilities/machine.h"
#include "ring/aux.h"
#include "sys/sys.h"
#include "util/kit.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

const char *pb_delivery_name(enum pb_delivery d)
{
	switch (d) {
	case PB_DELIVERY_NONE: return "none";
	case PB_DELIVERY_SIGNAL: return "signal";
	case PB_DELIVERY_SIGTRAP: return "sigtrap";
	case PB_DELIVERY_DRAIN: return "drain";
	}
	return "?";
}

int pb_delivery_parse(const char *text, enum pb_delivery *out, struct pb_error *err)
{
	static const enum pb_delivery all[] = {PB_DELIVERY_NONE, PB_DELIVERY_SIGNAL,
					       PB_DELIVERY_SIGTRAP, PB_DELIVERY_DRAIN};
	for (size_t i = 0; i < PB_ARRAY_SIZE(all); i++) {
		if (text && !strcmp(text, pb_delivery_name(all[i]))) {
			*out = all[i];
			return 0;
		}
	}
	return pb_fail(err, PB_EXIT_USAGE, 0,
		       "unknown delivery mode '%s'; use none, signal, sigtrap or drain",
		       text ? text : "");
}

uint64_t pb_event_lost(const struct pb_event_result *ev)
{
	uint64_t lost = ev->ring.lost > ev->lost_format ? ev->ring.lost : ev->lost_format;
	return lost + ev->ring.lost_samples + pb_aux_lost(&ev->ring);
}

bool pb_event_multiplexed(const struct pb_event_result *ev)
{
	return ev->time_running < ev->time_enabled;
}

uint64_t pb_ring_bytes_for_samples(uint64_t samples, uint64_t sample_bytes)
{
	/* Saturates: --iterations goes up to 2^56, and a product that wrapped would size a tiny
	 * ring for the largest runs; the ring cap bounds the result anyway. */
	uint64_t bytes;
	if (__builtin_mul_overflow(samples, sample_bytes, &bytes))
		return UINT64_MAX;
	/* a quarter more than expected, and room for side-band records */
	if (__builtin_add_overflow(bytes, bytes / 4, &bytes) ||
	    __builtin_add_overflow(bytes, (uint64_t)65536, &bytes))
		return UINT64_MAX;
	return bytes;
}

static void set_open_error(struct pb_event_result *er, int err_no, const struct perf_event_attr *a,
			   const struct pb_spec *spec)
{
	er->open_errno = err_no;
	const char *hint = "";
	switch (err_no) {
	case ENOSPC: hint = " (no free counter or slot for this event on this CPU: more events than "
			    "the hardware holds at once, or slots held by another tool)"; break;
	case ENOENT: hint = " (the event does not exist on this machine)"; break;
	case EACCES:
	case EPERM: hint = " (not permitted: lower /proc/sys/kernel/perf_event_paranoid or run with "
			   "CAP_PERFMON/CAP_SYS_ADMIN)"; break;
	case EOPNOTSUPP: hint = " (the PMU does not support this sampling configuration)"; break;
	case EINVAL: hint = " (the kernel rejected the attribute combination)"; break;
	case EMFILE: hint = " (too many open files: raise `ulimit -n`)"; break;
	case 524: hint = " (ENOTSUPP: the kernel does not support this event here)"; break;
	}
	/* A refusal says which rule refused: the facility's own reading first (a rule of its
	 * own, such as a privilege it needs whatever paranoid says), then kernel-mode counting
	 * at paranoid >= 2, the rule an unprivileged user meets. */
	char why[192];
	const char *own = spec ? pb_spec_open_refusal(spec, err_no) : NULL;
	if (own) {
		snprintf(why, sizeof why, " (%s)", own);
		hint = why;
	} else if (err_no == EACCES || err_no == EPERM) {
		const struct pb_machine *live = pb_machine_live();
		if (!a->exclude_kernel && !pb_machine_may_sample_kernel(live)) {
			snprintf(why, sizeof why,
				 " (kernel-mode counting, exclude_kernel=0, needs perf_event_paranoid "
				 "<= 1 (it is %d), CAP_PERFMON or CAP_SYS_ADMIN; or count user mode "
				 "only)", live->paranoid);
			hint = why;
		}
	}
	snprintf(er->open_error, sizeof er->open_error, "perf_event_open(type %u, config 0x%llx): %s",
		 a->type, (unsigned long long)a->config, strerror(err_no));
	size_t used = strlen(er->open_error);
	strncat(er->open_error, hint, sizeof er->open_error - used - 1);
}

int pb_event_attr(const struct pb_machine *m, const struct pb_event_config *ec,
		  const struct pb_target *target, struct perf_event_attr *attr, struct pb_error *err)
{
	memset(attr, 0, sizeof *attr);
	attr->exclude_kernel = ec->exclude_kernel;
	attr->exclude_user = ec->exclude_user;
	attr->exclude_hv = ec->exclude_kernel;
	/* every event opened passes the period check, whichever path set its period */
	if (pb_spec_check_period(&ec->spec, ec->period, "--period", err) ||
	    pb_spec_attr(m, &ec->spec, target, ec->period, attr, err))
		return -1;
	attr->size = sizeof *attr;
	attr->disabled = 1;
	attr->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING |
			    PERF_FORMAT_ID | PERF_FORMAT_LOST;
	if (ec->period) {
		/* No PERF_SAMPLE_IDENTIFIER: every event has a ring of its own, so the ring says
		 * whose a record is, and the id cost 8 bytes in every sample the kernel writes
		 * (40 where perf record writes 32 for the same IP, TID and TIME). */
		attr->sample_type |= PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
				     ec->extra_sample_type;
		attr->sample_id_all = 1;
	}
	if (ec->track_maps) {
		attr->mmap = 1;
		attr->mmap2 = 1;
		attr->comm = 1;
	}
	return 0;
}

int pb_event_open(struct perf_event_attr *attr, const struct pb_spec *spec, pid_t pid, int cpu,
		  const char *what, struct pb_event_result *er, struct pb_error *err)
{
	const struct pb_sys *sys = pb_sys();
	int fd = sys->perf_event_open(attr, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0 && errno == EINVAL && (attr->read_format & PERF_FORMAT_LOST)) {
		/* Kernels before 6.0 reject PERF_FORMAT_LOST: retry without, and say so. */
		attr->read_format &= ~(uint64_t)PERF_FORMAT_LOST;
		fd = sys->perf_event_open(attr, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
		if (fd < 0)
			attr->read_format |= PERF_FORMAT_LOST;
	}
	if (fd < 0) {
		int saved = errno;
		set_open_error(er, saved, attr, spec);
		return pb_fail(err, saved == EACCES || saved == EPERM || saved == ENOENT
					    ? PB_EXIT_UNAVAILABLE : PB_EXIT_FAILURE,
			       saved, "%s: %s", what, er->open_error);
	}
	er->opened = true;
	er->open_errno = 0;
	er->has_lost_format = attr->read_format & PERF_FORMAT_LOST;
	return fd;
}

int pb_event_read(int fd, const char *what, struct pb_event_result *er, struct pb_error *err)
{
	uint64_t buf[8] = {0};
	/* value, time_enabled, time_running, id[, lost] */
	size_t want = (er->has_lost_format ? 5 : 4) * sizeof(uint64_t);
	ssize_t n = pb_sys()->read(fd, buf, sizeof buf);
	if (n < 0) {
		int saved = errno;
		return pb_fail(err, PB_EXIT_FAILURE, saved, "%s: cannot read the counts: %s", what,
			       strerror(saved));
	}
	/* The kernel returns the whole read_format or nothing: anything shorter is not a count. */
	if ((size_t)n < want)
		return pb_fail(err, PB_EXIT_FAILURE, 0,
			       "%s: short read of the counts (%zd of %zu bytes)", what, n, want);
	er->count = buf[0];
	er->time_enabled = buf[1];
	er->time_running = buf[2];
	if (er->has_lost_format)
		er->lost_format = buf[4];
	return 0;
}

int pb_session_check_ring_pages(unsigned pages, struct pb_error *err)
{
	if (pages && (pages & (pages - 1)))
		return pb_fail(err, PB_EXIT_USAGE, 0,
			       "ring of %u pages: the kernel needs a power of two (e.g. %u)", pages,
			       1u << (31 - __builtin_clz(pages)));
	return 0;
}
