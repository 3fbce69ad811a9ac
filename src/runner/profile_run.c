/* `pesbench profile` below the CLI: the collector of the sampled run's records (sample IPs,
 * executable mappings, call chains for the exports, the perf.data recording), the random
 * period rewritten after each sample, the callgrind run and the comparison. */
#include "runner/profile_run.h"

#include "analysis/callgrind.h"
#include "export/from_profile.h"
#include "perfdata/perfdata.h"

#include <errno.h>
#include <stdarg.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

struct collect {
	pid_t pid;
	bool maps_read, oom;
	bool stacks;                 /* --export: the samples' stacks are kept */
	struct pb_xraw raw;
	struct pb_perfdata_recorder *recorder;   /* --record */
	const struct pb_process_result *res;     /* its events' attrs, for the recorder */
	const char *spec;
	struct pb_map *maps;
	size_t nmaps;
	uint64_t *ips;
	size_t nips, cap;
	uint64_t kernel;
	struct pb_period_rng rng;
	bool random;
};

static void add_sample(struct collect *c, const struct pb_sample *s, uint16_t misc)
{
	uint64_t ip = s->ip;
	unsigned mode = misc & PERF_RECORD_MISC_CPUMODE_MASK;
	if (mode == PERF_RECORD_MISC_KERNEL || mode == PERF_RECORD_MISC_GUEST_KERNEL) {
		c->kernel++;
		return;
	}
	static const uint64_t one_sample[PB_XPROF_NTYPES] = {[PB_XPROF_SAMPLES] = 1};
	bool chain = s->sample_type & PERF_SAMPLE_CALLCHAIN;
	if (c->stacks && pb_xraw_add(&c->raw, 0, ip, chain ? s->callchain : NULL,
				     chain ? s->callchain_nr : 0, one_sample))
		c->oom = true;
	if (c->nips == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 4096;
		uint64_t *v = realloc(c->ips, cap * sizeof *v);
		if (!v) {
			c->oom = true;
			return;
		}
		c->ips = v;
		c->cap = cap;
	}
	c->ips[c->nips++] = ip;
}

static void add_mmap(struct collect *c, const struct pb_record *rec)
{
	bool exec = rec->type == PERF_RECORD_MMAP2 ? (rec->u.mmap.prot & PROT_EXEC) != 0
						   : !(rec->misc & PERF_RECORD_MISC_MMAP_DATA);
	if (exec && rec->u.mmap.filename && rec->u.mmap.filename[0] == '/' &&
	    pb_maps_add(&c->maps, &c->nmaps, rec->u.mmap.addr, rec->u.mmap.len, rec->u.mmap.pgoff,
			rec->u.mmap.filename))
		c->oom = true;
}

static void on_start(void *ctx, pid_t child)
{
	((struct collect *)ctx)->pid = child;
}

static void on_record(void *ctx, unsigned event, const struct pb_record *rec)
{
	(void)event;
	struct collect *c = ctx;
	/* The mappings exec made happened before the events were enabled: no MMAP2 record tells
	 * of them. The first record comes after exec, while the process is alive: read them. */
	if (!c->maps_read && c->pid > 0 && pb_maps_read_proc(c->pid, &c->maps, &c->nmaps) > 0)
		c->maps_read = true;
	if (c->recorder && c->pid > 0)
		pb_perfdata_recorder_add(c->recorder, &c->res->events[0].attr, c->spec,
					 (uint32_t)c->pid, rec);
	if (rec->type == PERF_RECORD_SAMPLE)
		add_sample(c, &rec->u.sample, rec->misc);
	else if (rec->type == PERF_RECORD_MMAP2 || rec->type == PERF_RECORD_MMAP)
		add_mmap(c, rec);
}

static uint64_t next_period(void *ctx, unsigned event, const struct pb_sample *s)
{
	(void)event;
	(void)s;
	struct collect *c = ctx;
	return c->random ? pb_period_rng_next(&c->rng) : 0;
}

static int perfdata_record(void *ctx, int event, const struct pb_record *rec,
			   const uint8_t *bytes, size_t len, struct pb_error *err)
{
	(void)event;
	(void)bytes;
	(void)len;
	(void)err;
	struct collect *c = ctx;
	if (rec->type == PERF_RECORD_SAMPLE)
		add_sample(c, &rec->u.sample, rec->misc);
	else if (rec->type == PERF_RECORD_MMAP2 || rec->type == PERF_RECORD_MMAP)
		add_mmap(c, rec);
	return 0;
}

/* argv[0] as execvp would find it. */
static int resolve(const char *cmd, char *out, size_t len, struct pb_error *err)
{
	if (strchr(cmd, '/')) {
		if (access(cmd, X_OK))
			return pb_fail(err, PB_EXIT_USAGE, errno, "cannot run '%s': %s", cmd,
				       strerror(errno));
		snprintf(out, len, "%s", cmd);
		return 0;
	}
	const char *path = getenv("PATH");
	if (!path)
		path = "/usr/bin:/bin";
	while (*path) {
		size_t n = strcspn(path, ":");
		snprintf(out, len, "%.*s/%s", (int)n, path, cmd);
		struct stat st;
		if (n && !stat(out, &st) && S_ISREG(st.st_mode) && !access(out, X_OK))
			return 0;
		path += n + (path[n] == ':');
	}
	return pb_fail(err, PB_EXIT_USAGE, ENOENT, "cannot run '%s': not found in PATH", cmd);
}

int pb_profile_check_command(const char *argv0, struct pb_error *err)
{
	char exe[PATH_MAX];
	if (resolve(argv0, exe, sizeof exe, err))
		return -1;
	if (!pb_is_elf_file(exe))
		return pb_fail(err, PB_EXIT_USAGE, 0,
			       "%s is not an ELF executable (a script?): the samples and callgrind "
			       "would both see its interpreter; profile the interpreter with the "
			       "script as its argument",
			       exe);
	char why[256];
	if (!pb_callgrind_available(why, sizeof why))
		return pb_fail(err, PB_EXIT_UNAVAILABLE, 0,
			       "the exact reference needs callgrind: %s", why);
	return 0;
}

static int sample_command(const struct pb_profile_job *job, struct collect *c,
			  struct pb_profile_outcome *out, struct pb_error *err)
{
	struct pb_process_config cfg = {0};
	cfg.argv = job->argv;
	cfg.nevents = 1;
	cfg.quiet = true;
	struct pb_event_config *ev = &cfg.events[0];
	ev->spec = *job->spec;
	if (pb_period_setup_for(job->method, job->base_period, &ev->spec, &out->setup, err))
		return -1;
	snprintf(out->spec_text, sizeof out->spec_text, "%s", ev->spec.text);
	ev->period = out->setup.initial;
	ev->exclude_kernel = true;
	ev->track_maps = true;
	if (job->call_graph)
		ev->extra_sample_type |= PERF_SAMPLE_CALLCHAIN;
	if (out->setup.ioctl_each_sample) {
		c->random = true;
		pb_period_rng_init(&c->rng, out->setup.base, job->seed);
		cfg.on_sample_period = next_period;
	}
	cfg.on_record = on_record;
	cfg.on_start = on_start;
	cfg.record_ctx = c;
	c->res = &out->process;
	c->spec = ev->spec.text;
	struct pb_process_result *res = &out->process;
	if (pb_process_run(&cfg, res, err))
		return -1;
	if (c->oom)
		return pb_fail(err, PB_EXIT_FAILURE, ENOMEM, "out of memory collecting samples");
	if (res->signaled)
		return pb_fail(err, PB_EXIT_FAILURE, 0, "%s was killed by signal %d", job->argv[0],
			       res->term_signal);
	if (res->exit_code)
		return pb_fail(err, PB_EXIT_FAILURE, 0,
			       "%s exited with status %d: profile a command that succeeds",
			       job->argv[0], res->exit_code);
	return 0;
}

static int read_perf_data(const char *perf_data, struct collect *c, struct pb_error *err)
{
	struct pb_perfdata *pd;
	if (pb_perfdata_open(perf_data, &pd, err))
		return -1;
	int rc = pb_perfdata_for_each(pd, perfdata_record, c, NULL, err);
	pb_perfdata_close(pd);
	if (!rc && c->oom)
		rc = pb_fail(err, PB_EXIT_FAILURE, ENOMEM, "out of memory reading %s",
			     perf_data);
	if (!rc && !c->nmaps)
		rc = pb_fail(err, PB_EXIT_BAD_FILE, 0,
			     "%s has no MMAP records: symbols cannot be resolved (record with "
			     "`perf record` of the command itself)",
			     perf_data);
	return rc;
}

static void say(const struct pb_profile_job *job, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void say(const struct pb_profile_job *job, const char *fmt, ...)
{
	if (!job->say)
		return;
	char line[PATH_MAX + 128];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	job->say(job->say_ctx, line);
}

struct written_ctx {
	const struct pb_profile_job *job;
	const char *format;
};

static void say_written(void *ctx, const char *path, const char *profile)
{
	const struct written_ctx *w = ctx;
	say(w->job, "wrote %s (%s, %s)", path, w->format, profile);
}

/* The sampled and the exact profile in every export format asked for. */
static int write_exports(const struct pb_profile_job *job, struct collect *c, const char *cg_out,
			 const struct pb_profile_outcome *out, struct pb_error *err)
{
	char source[PATH_MAX + 64];
	if (job->perf_data)
		snprintf(source, sizeof source, "%s", job->perf_data);
	else
		snprintf(source, sizeof source, "%s, period %llu (%s)", out->spec_text,
			 (unsigned long long)out->setup.initial,
			 pb_period_method_name(out->setup.method));
	struct pb_xset set = {0};
	struct pb_xprof_input in = {.maps = c->maps, .nmaps = c->nmaps, .sampled = &c->raw,
				    .kernel_samples = c->kernel, .callgrind_file = cg_out,
				    .source = source};
	int rc = pb_xprof_build(&in, &set, err);
	for (size_t i = 0; !rc && i < job->nexports; i++) {
		struct written_ctx w = {.job = job, .format = job->exports[i].format->name};
		rc = pb_export_write(&job->exports[i], &set, say_written, &w, err);
	}
	pb_xset_free(&set);
	return rc;
}

static void remove_dir(const char *dir, const char *a, const char *b)
{
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/%s", dir, a);
	unlink(path);
	snprintf(path, sizeof path, "%s/%s", dir, b);
	unlink(path);
	rmdir(dir);
}

/* The samples, from the command sampled now or from its perf.data, with the recording made
 * as they come. */
static int collect_samples(const struct pb_profile_job *job, struct collect *c,
			   struct pb_profile_outcome *out, struct pb_error *err)
{
	if (job->record && pb_perfdata_recorder_open(job->record, &c->recorder, err))
		return -1;
	if (c->stacks && pb_xprof_raw_init(&c->raw)) {
		pb_perfdata_recorder_close(c->recorder, NULL, NULL);
		return pb_fail(err, PB_EXIT_FAILURE, ENOMEM, "out of memory");
	}
	int rc = job->perf_data ? read_perf_data(job->perf_data, c, err)
				: sample_command(job, c, out, err);
	if (c->recorder) {
		/* the recording stands whatever the comparison says: it is what was sampled */
		int recorded = pb_perfdata_recorder_close(c->recorder, NULL, rc ? NULL : err);
		if (!rc && recorded)
			rc = -1;
		else if (!recorded)
			say(job, "wrote %s (perf.data)", job->record);
	}
	if (!rc && !c->nips && !c->kernel)
		rc = pb_fail(err, PB_EXIT_FAILURE, 0,
			     "no samples: the command ran too briefly for period %llu; lower --period "
			     "or give it more work",
			     (unsigned long long)out->setup.initial);
	if (!rc && !c->nmaps)
		rc = pb_fail(err, PB_EXIT_FAILURE, 0,
			     "the command's memory map could not be read: it exited before its first "
			     "sample was drained");
	return rc;
}

int pb_profile_run(const struct pb_profile_job *job, struct pb_profile_outcome *out,
		   struct pb_error *err)
{
	memset(out, 0, sizeof *out);
	out->setup.method = job->method;
	struct collect c = {.stacks = job->nexports > 0};
	int rc = collect_samples(job, &c, out, err);
	char dir[] = "/tmp/pesbench-profile-XXXXXX";
	bool have_dir = false;
	if (!rc && !mkdtemp(dir))
		rc = pb_fail(err, PB_EXIT_OUTPUT, errno, "cannot create a folder in /tmp: %s",
			     strerror(errno));
	else if (!rc)
		have_dir = true;
	char cg_out[PATH_MAX], cg_stdout[PATH_MAX];
	snprintf(cg_out, sizeof cg_out, "%s/callgrind.out", dir);
	snprintf(cg_stdout, sizeof cg_stdout, "%s/stdout", dir);
	if (!rc && job->announce_callgrind)
		say(job, "running %s under callgrind (slow)...", job->argv[0]);
	if (!rc)
		rc = pb_callgrind_run(job->argv, cg_out, cg_stdout, false, err);
	if (!rc) {
		struct pb_profile_input in = {.maps = c.maps, .nmaps = c.nmaps, .ips = c.ips,
					      .nips = c.nips, .kernel_samples = c.kernel,
					      .callgrind_file = cg_out};
		rc = pb_profile_compute(&in, &out->report, err);
	}
	if (!rc && job->nexports)
		rc = write_exports(job, &c, cg_out, out, err);
	if (have_dir)
		remove_dir(dir, "callgrind.out", "stdout");
	free(c.maps);
	free(c.ips);
	pb_xraw_free(&c.raw);
	return rc;
}

void pb_profile_outcome_free(struct pb_profile_outcome *out)
{
	pb_profile_report_free(&out->report);
}
