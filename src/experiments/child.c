#include "experiments/child.h"

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
