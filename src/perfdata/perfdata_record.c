/* pesbench's samples into a perf.data through the writer, as they stream out of a session: the
 * event and the process's mappings go in at the first record (the session has opened the event
 * by then, and the process still runs), so perf script and perf report name every address. */
#include "perfdata/perfdata.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAMED_THREADS 256

struct pb_perfdata_recorder {
	struct pb_perfdata_writer *w;
	bool started, failed;
	struct pb_error err;
	uint64_t samples;
	uint32_t named[NAMED_THREADS];   /* threads that have a COMM record */
	size_t nnamed;
};

/* A COMM record for a sampled thread other than the process's first, which perf script shows
 * as its command ("pid:tid" without one); past NAMED_THREADS threads perf shows their ids. */
static int name_thread(struct pb_perfdata_recorder *r, uint32_t pid, uint32_t tid)
{
	for (size_t i = 0; i < r->nnamed; i++)
		if (r->named[i] == tid)
			return 0;
	if (r->nnamed == NAMED_THREADS)
		return 0;
	r->named[r->nnamed++] = tid;
	if (tid == pid)
		return 0; /* pb_perfdata_writer_proc_maps wrote it */
	char path[64], comm[64] = "";
	snprintf(path, sizeof path, "/proc/%u/task/%u/comm", pid, tid);
	FILE *f = fopen(path, "r");
	if (f) {
		if (fgets(comm, sizeof comm, f))
			comm[strcspn(comm, "\n")] = '\0';
		fclose(f);
	}
	return pb_perfdata_writer_comm(r->w, pid, tid, comm[0] ? comm : "pesbench", &r->err);
}

int pb_perfdata_recorder_open(const char *path, struct pb_perfdata_recorder **out,
			      struct pb_error *err)
{
	struct pb_perfdata_recorder *r = calloc(1, sizeof *r);
	if (!r)
		return pb_fail(err, PB_EXIT_FAILURE, ENOMEM, "out of memory");
	if (pb_perfdata_writer_open(path, &r->w, err)) {
		free(r);
		return -1;
	}
	*out = r;
	return 0;
}

static int start(struct pb_perfdata_recorder *r, const struct perf_event_attr *attr,
		 const char *name, uint32_t pid)
{
	struct perf_event_attr a = *attr;
	a.sample_type &= ~(uint64_t)PERF_SAMPLE_READ;
	a.read_format = 0;
	a.disabled = 0;
	if (pb_perfdata_writer_add_event(r->w, &a, name, NULL, 0, &r->err) < 0)
		return -1;
	return pb_perfdata_writer_proc_maps(r->w, pid, &r->err);
}

void pb_perfdata_recorder_add(struct pb_perfdata_recorder *r, const struct perf_event_attr *attr,
			      const char *name, uint32_t pid, const struct pb_record *rec)
{
	if (r->failed)
		return;
	if (!r->started) {
		r->started = true;
		if (start(r, attr, name, pid)) {
			r->failed = true;
			return;
		}
	}
	int rc = 0;
	if (rec->type == PERF_RECORD_SAMPLE) {
		struct pb_sample s = rec->u.sample;
		s.sample_type &= ~(uint64_t)PERF_SAMPLE_READ;
		rc = name_thread(r, s.pid, s.tid);
		if (!rc)
			rc = pb_perfdata_writer_sample(r->w, 0, &s, &r->err);
		r->samples += !rc;
	} else if (rec->type == PERF_RECORD_LOST) {
		rc = pb_perfdata_writer_lost(r->w, rec->u.lost.id, rec->u.lost.lost, &r->err);
	} else if (rec->type == PERF_RECORD_MMAP2 && rec->u.mmap.filename) {
		/* a mapping made after the first record (ld.so loading the libraries) */
		rc = pb_perfdata_writer_mmap2(r->w, rec->u.mmap.pid, rec->u.mmap.tid,
					      rec->u.mmap.addr, rec->u.mmap.len, rec->u.mmap.pgoff,
					      rec->u.mmap.prot, rec->u.mmap.flags,
					      rec->u.mmap.filename, &r->err);
	}
	r->failed = rc != 0;
}

int pb_perfdata_recorder_close(struct pb_perfdata_recorder *r, uint64_t *samples,
			       struct pb_error *err)
{
	if (!r->failed && !r->started) {
		r->failed = true;
		pb_fail(&r->err, PB_EXIT_FAILURE, 0, "nothing was sampled: no perf.data written");
	}
	if (samples)
		*samples = r->samples;
	int rc;
	if (r->failed) {
		pb_perfdata_writer_abort(r->w);
		if (err)
			*err = r->err;
		rc = -1;
	} else {
		rc = pb_perfdata_writer_close(r->w, err);
	}
	free(r);
	return rc;
}
