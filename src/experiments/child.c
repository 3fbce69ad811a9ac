#include "experiments/child.h"

#include "experiments/point.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

/* What travels up the pipe. It is larger than PIPE_BUF, so the parent reads until EOF rather
 * than trusting one read. */
struct report {
	int rc;
	unsigned n;
	double figures[PB_CHILD_MAX_FIGURES];
	struct pb_error err;
};

static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	while (len) {
		ssize_t w = write(fd, p, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

static size_t read_all(int fd, void *buf, size_t len)
{
	char *p = buf;
	size_t got = 0;
	while (got < len) {
		ssize_t r = read(fd, p + got, len - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	return got;
}

int pb_child_run(pb_child_fn fn, void *ctx, struct pb_child_result *out, struct pb_error *err)
{
	memset(out, 0, sizeof *out);
	int fds[2];
	if (pipe2(fds, O_CLOEXEC))
		return pb_fail(err, PB_EXIT_FAILURE, errno, "pipe: %s", strerror(errno));
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		close(fds[0]);
		close(fds[1]);
		return pb_fail(err, PB_EXIT_FAILURE, e, "fork: %s", strerror(e));
	}
	if (pid == 0) {
		close(fds[0]);
		struct report rep;
		memset(&rep, 0, sizeof rep);
		rep.rc = fn(ctx, rep.figures, PB_CHILD_MAX_FIGURES, &rep.n, &rep.err);
		if (rep.n > PB_CHILD_MAX_FIGURES)
			rep.n = PB_CHILD_MAX_FIGURES;
		int w = write_all(fds[1], &rep, sizeof rep);
		/* _exit: the parent's atexit handlers and stdio buffers are not the child's. */
		_exit(w ? 3 : 0);
	}
	close(fds[1]);
	struct report rep;
	size_t got = read_all(fds[0], &rep, sizeof rep);
	close(fds[0]);
	int status = 0;
	struct rusage ru;
	memset(&ru, 0, sizeof ru);
	while (wait4(pid, &status, 0, &ru) < 0) {
		if (errno != EINTR)
			return pb_fail(err, PB_EXIT_FAILURE, errno, "wait4: %s", strerror(errno));
	}
	out->maxrss_kib = (uint64_t)ru.ru_maxrss;
	out->user_s = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6;
	out->system_s = (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
	if (WIFSIGNALED(status))
		return pb_fail(err, PB_EXIT_FAILURE, 0,
			       "the measuring child was killed by signal %d (%s)", WTERMSIG(status),
			       strsignal(WTERMSIG(status)));
	if (got != sizeof rep || !WIFEXITED(status) || WEXITSTATUS(status))
		return pb_fail(err, PB_EXIT_FAILURE, 0,
			       "the measuring child exited (status %d) without reporting its figures",
			       WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	if (rep.rc) {
		if (err)
			*err = rep.err;
		return -1;
	}
	out->nfigures = rep.n;
	memcpy(out->figures, rep.figures, sizeof rep.figures);
	return 0;
}

uint64_t pb_self_maxrss_kib(void)
{
	struct rusage ru;
	if (getrusage(RUSAGE_SELF, &ru))
		return 0;
	return (uint64_t)ru.ru_maxrss;
}

enum { F_WALL, F_OBSERVED, F_LOST, F_SIGNALS, F_THROTTLES, F_COUNT, F_EXPECTED, F_RING, F_CPU,
       F_N };

static int measure_point(void *ctx, double *figures, unsigned max, unsigned *n,
			 struct pb_error *err)
{
	const struct pb_point_request *req = ctx;
	struct pb_point pt;
	if (max < F_N || pb_point_measure(req, &pt, err))
		return -1;
	const struct pb_point_figures *f = &pt.ev[0];
	figures[F_WALL] = (double)pt.wall_ns;
	figures[F_OBSERVED] = (double)f->observed;
	figures[F_LOST] = (double)f->lost;
	figures[F_SIGNALS] = (double)f->signals;
	figures[F_THROTTLES] = (double)f->throttles;
	figures[F_COUNT] = (double)f->count;
	figures[F_EXPECTED] = f->expected;
	figures[F_RING] = (double)f->ring_pages;
	double cpu = 0;
	for (unsigned t = 0; t < req->threads && t < PB_MAX_THREADS; t++)
		cpu += (double)pt.cpu_ns[t];
	figures[F_CPU] = cpu;
	*n = F_N;
	pb_point_free(&pt);
	return 0;
}

int pb_child_measure_point(const struct pb_point_request *req, struct pb_child_point *out,
			   struct pb_error *err)
{
	memset(out, 0, sizeof *out);
	struct pb_child_result r;
	if (pb_child_run(measure_point, (void *)req, &r, err))
		return -1;
	if (r.nfigures < F_N)
		return pb_fail(err, PB_EXIT_FAILURE, 0, "the measuring child reported %u figures, "
			       "expected %d", r.nfigures, F_N);
	/* Doubles carry integers exactly up to 2^53: far beyond any count here. */
	out->wall_ns = (uint64_t)r.figures[F_WALL];
	out->observed = (uint64_t)r.figures[F_OBSERVED];
	out->lost = (uint64_t)r.figures[F_LOST];
	out->signals = (uint64_t)r.figures[F_SIGNALS];
	out->throttles = (uint64_t)r.figures[F_THROTTLES];
	out->count = (uint64_t)r.figures[F_COUNT];
	out->expected = r.figures[F_EXPECTED];
	out->ring_pages = (uint64_t)r.figures[F_RING];
	out->cpu_ns = (uint64_t)r.figures[F_CPU];
	out->maxrss_kib = r.maxrss_kib;
	return 0;
}
