/* Why a uprobe hit costs more on 2 threads than on 1 (docs/overhead.md, "The prediction table").
 * pesbench's cost sweep measures one thread; its predictions on 2 threads came out high. This
 * separates the candidate causes with the one loop probed two ways: its `add` (single-stepped out
 * of line, in the process's one XOL area) and its `jne` (emulated, no XOL). Modes, one row per
 * measuring thread (CPU time of the loop only, so no perf set-up in it):
 *   0 no probe (the loop's own cost)     1 one thread, its own event
 *   2 two threads of one process, each its own event, both hitting
 *   3 one thread hitting + an idle thread of the process holding its own event on the address
 *     (each event is its own consumer of the uprobe, so every hit runs both handlers)
 *   4/5 one thread here + one forked process hitting at once (own mm, own XOL area; 5 is the
 *     child's row)  -- run with a second argument ("proc") to get modes 1, 2, 4/5 only.
 * Configurations rotate their order every round. Build and run (x86-64):
 *   gcc -O2 -Wall -o /tmp/uprobe-threads bench/uprobe-threads.c -lpthread
 *   /tmp/uprobe-threads 15 > rows.tsv   # round site mode period iterations thread cpu_ns count head lost
 */
#define _GNU_SOURCE
#include <linux/perf_event.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

void xb_loop(long n);
extern char xb_add[], xb_jne[];
__asm__(".text\n.globl xb_loop\n.type xb_loop,@function\nxb_loop:\n"
	" mov %rdi,%rcx\n xor %eax,%eax\n"
	"1:\n.globl xb_add\nxb_add:\n add $1,%rax\n dec %rcx\n"
	".globl xb_jne\nxb_jne:\n jne 1b\n ret\n");

static char exe[4096];
static int uprobe_type;
static uint64_t file_off(void *addr)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	uint64_t a = (uint64_t)addr, r = 0;
	while (fgets(line, sizeof line, f)) {
		unsigned long lo, hi, off;
		if (sscanf(line, "%lx-%lx %*s %lx", &lo, &hi, &off) == 3 && a >= lo && a < hi) {
			r = a - lo + off;
			break;
		}
	}
	fclose(f);
	return r;
}

static int open_probe(pid_t tid, uint64_t off, uint64_t period, void **ring, size_t pages)
{
	struct perf_event_attr at;
	memset(&at, 0, sizeof at);
	at.size = sizeof at;
	at.type = uprobe_type;
	at.config1 = (uint64_t)(uintptr_t)exe;
	at.config2 = off;
	at.sample_period = period;
	at.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID;
	at.disabled = 1;
	int fd = syscall(SYS_perf_event_open, &at, tid, -1, -1, 0);
	if (fd < 0) { perror("perf_event_open"); exit(1); }
	*ring = mmap(NULL, (pages + 1) * 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (*ring == MAP_FAILED) { perror("mmap"); exit(1); }
	return fd;
}

struct worker {
	pthread_t th;
	int cpu, hits_it; /* hits_it: runs the loop, else idles */
	long n;
	pid_t tid;
	pthread_barrier_t *ready, *go, *done;
	double cpu_ns;
};

static void *work(void *p)
{
	struct worker *w = p;
	cpu_set_t s;
	CPU_ZERO(&s);
	CPU_SET(w->cpu, &s);
	pthread_setaffinity_np(pthread_self(), sizeof s, &s);
	w->tid = syscall(SYS_gettid);
	pthread_barrier_wait(w->ready);
	pthread_barrier_wait(w->go);
	struct timespec a, b;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
	if (w->hits_it)
		xb_loop(w->n);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
	w->cpu_ns = (b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec);
	pthread_barrier_wait(w->done);
	return NULL;
}

/* mode: 1 = one thread; 2 = two threads both hitting; 3 = one hitting + one idle with its own event; 0 = no probe */
static void run(const char *site, int mode, uint64_t period, long n, int round)
{
	int nth = (mode == 2 || mode == 3) ? 2 : 1;
	/* mode 4: one thread here plus one in a forked child process (own mm, own XOL area) */
	int p2c[2], c2p[2];
	pid_t child = -1;
	uint64_t off0 = file_off(strcmp(site, "add") ? (void *)xb_jne : (void *)xb_add);
	if (mode == 4) {
		if (pipe(p2c) || pipe(c2p)) exit(1);
		child = fork();
		if (child == 0) {
			cpu_set_t s;
			CPU_ZERO(&s);
			CPU_SET(1, &s);
			sched_setaffinity(0, sizeof s, &s);
			char b;
			if (read(p2c[0], &b, 1) != 1) _exit(1);
			struct timespec a, e;
			clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
			xb_loop(n);
			clock_gettime(CLOCK_THREAD_CPUTIME_ID, &e);
			double ns = (e.tv_sec - a.tv_sec) * 1e9 + (e.tv_nsec - a.tv_nsec);
			if (write(c2p[1], &ns, sizeof ns) != sizeof ns) _exit(1);
			_exit(0);
		}
	}
	pthread_barrier_t ready, go, done;
	pthread_barrier_init(&ready, NULL, nth + 1);
	pthread_barrier_init(&go, NULL, nth + 1);
	pthread_barrier_init(&done, NULL, nth + 1);
	struct worker w[2];
	for (int i = 0; i < nth; i++) {
		w[i] = (struct worker){ .cpu = i, .hits_it = !(mode == 3 && i == 1), .n = n,
					.ready = &ready, .go = &go, .done = &done };
		pthread_create(&w[i].th, NULL, work, &w[i]);
	}
	pthread_barrier_wait(&ready);
	int fd[2] = { -1, -1 };
	void *ring[2];
	size_t pages = 2048;
	uint64_t off = file_off(strcmp(site, "add") ? (void *)xb_jne : (void *)xb_add);
	if (mode)
		for (int i = 0; i < nth; i++) {
			fd[i] = open_probe(w[i].tid, off, period, &ring[i], pages);
			ioctl(fd[i], PERF_EVENT_IOC_ENABLE, 0);
		}
	int cfd = -1;
	void *cring;
	if (mode == 4) {
		cfd = open_probe(child, off0, period, &cring, pages);
		ioctl(cfd, PERF_EVENT_IOC_ENABLE, 0);
		if (write(p2c[1], "g", 1) != 1) exit(1);
	}
	pthread_barrier_wait(&go);
	pthread_barrier_wait(&done);
	if (mode == 4) {
		double cns = 0;
		if (read(c2p[0], &cns, sizeof cns) != sizeof cns) exit(1);
		waitpid(child, NULL, 0);
		uint64_t cnt = 0;
		if (read(cfd, &cnt, sizeof cnt) != sizeof cnt) cnt = 0;
		printf("%d\t%s\t%d\t%lu\t%ld\t%d\t%.0f\t%lu\t0\t0\n", round, site, 5,
		       (unsigned long)period, n, 1, cns, (unsigned long)cnt);
		munmap(cring, (pages + 1) * 4096);
		close(cfd);
		close(p2c[0]); close(p2c[1]); close(c2p[0]); close(c2p[1]);
	}
	for (int i = 0; i < nth; i++) {
		pthread_join(w[i].th, NULL);
		uint64_t cnt = 0;
		if (fd[i] >= 0) {
			if (read(fd[i], &cnt, sizeof cnt) != sizeof cnt) cnt = 0;
			struct perf_event_mmap_page *mp = ring[i];
			uint64_t head = __atomic_load_n(&mp->data_head, __ATOMIC_ACQUIRE);
			/* count lost records so a ring overflow is not hidden */
			uint64_t lost = 0, t = 0;
			char *data = (char *)ring[i] + 4096;
			while (t < head) {
				struct perf_event_header *h = (void *)(data + (t % (pages * 4096)));
				if (h->type == PERF_RECORD_LOST) lost += ((uint64_t *)(h + 1))[1];
				t += h->size;
			}
			printf("%d\t%s\t%d\t%lu\t%ld\t%d\t%.0f\t%lu\t%lu\t%lu\n", round, site, mode,
			       (unsigned long)period, n, i, w[i].cpu_ns, (unsigned long)cnt,
			       (unsigned long)head, (unsigned long)lost);
			munmap(ring[i], (pages + 1) * 4096);
			close(fd[i]);
		} else
			printf("%d\t%s\t%d\t%lu\t%ld\t%d\t%.0f\t0\t0\t0\n", round, site, mode,
			       (unsigned long)period, n, i, w[i].cpu_ns);
	}
	fflush(stdout);
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 10;
	long n_add = 10000, n_jne = 200000;
	ssize_t l = readlink("/proc/self/exe", exe, sizeof exe - 1);
	exe[l] = 0;
	FILE *f = fopen("/sys/bus/event_source/devices/uprobe/type", "r");
	if (!f || fscanf(f, "%d", &uprobe_type) != 1) return 1;
	fclose(f);
	struct { const char *site; int mode; uint64_t period; } cfg[] = {
		{ "add", 1, 1000000000 }, { "add", 2, 1000000000 }, { "add", 3, 1000000000 },
		{ "add", 1, 1 }, { "add", 2, 1 }, { "add", 3, 1 },
		{ "jne", 1, 1000000000 }, { "jne", 2, 1000000000 }, { "jne", 3, 1000000000 },
		{ "jne", 1, 1 }, { "jne", 2, 1 }, { "jne", 3, 1 },
		{ "jne", 0, 0 }, { "add", 0, 0 },
		{ "add", 4, 1000000000 }, { "jne", 4, 1000000000 },
	};
	int nc = sizeof cfg / sizeof cfg[0];
	if (argc > 2) { /* "proc": the cross-process check only, against 1T and 2T */
		static const int pick[] = { 0, 1, 14, 6, 7, 15, 12, 13 };
		for (int r = 0; r < rounds; r++)
			for (int k = 0; k < 8; k++) {
				int c = pick[(k + r) % 8];
				run(cfg[c].site, cfg[c].mode, cfg[c].period,
				    strcmp(cfg[c].site, "add") ? n_jne : n_add, r);
			}
		return 0;
	}
	for (int r = 0; r < rounds; r++)
		for (int k = 0; k < nc; k++) {
			int c = (k + r) % nc; /* rotate the order every round */
			run(cfg[c].site, cfg[c].mode, cfg[c].period,
			    strcmp(cfg[c].site, "add") ? n_jne : n_add, r);
		}
	return 0;
}
