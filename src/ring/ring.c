/* The reader side of the perf mmap ring buffer protocol (see ring.h). pb_ring_drain, and the
 * iterator it is made of, run inside signal handlers, so they only touch the mapping, the ring's
 * own scratch buffer and the stack. */
#include "ring/ring.h"

#include "sys/sys.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static size_t system_page_size(void)
{
	long p = sysconf(_SC_PAGESIZE);
	return p > 0 ? (size_t)p : 4096;
}

static bool is_power_of_two(uint64_t n)
{
	return n != 0 && (n & (n - 1)) == 0;
}

/* Touches every page so that no first access happens later from inside the measured region:
 * a page-fault sampling event with O_ASYNC re-faults forever on such a first touch. The control
 * page is also written (data_tail with its own value) because its first write is a fault too. */
static void prefault(void *base, size_t size, size_t page, struct perf_event_mmap_page *meta)
{
	const volatile uint8_t *p = base;
	uint8_t sink = 0;
	for (size_t off = 0; off < size; off += page)
		sink ^= p[off];
	(void)sink;
	if (meta) {
		uint64_t tail = __atomic_load_n(&meta->data_tail, __ATOMIC_RELAXED);
		__atomic_store_n(&meta->data_tail, tail, __ATOMIC_RELEASE);
	}
}

static int map_failure(struct pb_error *err, int e, const char *what, size_t bytes, int fd)
{
	if (e == EPERM || e == ENOMEM)
		return pb_fail(err, PB_EXIT_FAILURE, e,
			       "cannot map the %zu-byte perf %s of event fd %d: %s; the locked-memory "
			       "budget is probably exhausted: use fewer ring pages, or raise "
			       "/proc/sys/kernel/perf_event_mlock_kb or `ulimit -l`",
			       bytes, what, fd, strerror(e));
	return pb_fail(err, PB_EXIT_FAILURE, e, "cannot map the %zu-byte perf %s of event fd %d: %s",
		       bytes, what, fd, strerror(e));
}

int pb_ring_map(struct pb_ring *ring, int fd, unsigned data_pages, struct pb_error *err)
{
	size_t page = system_page_size();

	ring->fd = -1;
	ring->base = NULL;
	ring->map_size = 0;
	ring->meta = NULL;
	ring->data = NULL;
	ring->data_size = 0;
	ring->aux = NULL;
	ring->aux_size = 0;
	if (!is_power_of_two(data_pages))
		return pb_fail(err, PB_EXIT_USAGE, 0,
			       "ring buffer of %u data pages refused: the kernel needs a power-of-two "
			       "number of data pages (1, 2, 4, 8, ...)",
			       data_pages);

	size_t size = ((size_t)data_pages + 1) * page;
	void *base = pb_sys()->mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (base == MAP_FAILED)
		return map_failure(err, errno, "ring buffer", size, fd);

	struct perf_event_mmap_page *meta = base;
	/* Kernels before 4.1 leave data_offset/data_size zero; the layout is then implied. */
	uint64_t data_offset = meta->data_offset ? meta->data_offset : page;
	uint64_t data_size = meta->data_size ? meta->data_size : (uint64_t)data_pages * page;
	if (!is_power_of_two(data_size) || data_offset < sizeof(*meta) ||
	    data_offset + data_size > size) {
		pb_sys()->munmap(base, size);
		return pb_fail(err, PB_EXIT_FAILURE, 0,
			       "perf ring of fd %d has an impossible layout (data_offset %llu, "
			       "data_size %llu, mapping %zu bytes)",
			       fd, (unsigned long long)data_offset, (unsigned long long)data_size, size);
	}
	prefault(base, size, page, meta);

	ring->fd = fd;
	ring->base = base;
	ring->map_size = size;
	ring->meta = meta;
	ring->data = (uint8_t *)base + data_offset;
	ring->data_size = data_size;
	return 0;
}

int pb_ring_map_aux(struct pb_ring *ring, unsigned aux_pages, struct pb_error *err)
{
	size_t page = system_page_size();

	if (!ring->meta)
		return pb_fail(err, PB_EXIT_FAILURE, 0,
			       "the AUX area can only be mapped after the ring buffer itself");
	if (!is_power_of_two(aux_pages))
		return pb_fail(err, PB_EXIT_USAGE, 0,
			       "AUX area of %u pages refused: the kernel needs a power-of-two number "
			       "of pages (1, 2, 4, 8, ...)",
			       aux_pages);
	uint64_t offset = (uint64_t)((uint8_t *)ring->data - (uint8_t *)ring->base) + ring->data_size;
	size_t size = (size_t)aux_pages * page;
	/* The kernel reads where the AUX area goes from the control page before mmap() sees it. */
	ring->meta->aux_offset = offset;
	ring->meta->aux_size = size;
	void *aux = pb_sys()->mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, ring->fd,
				   (off_t)offset);
	if (aux == MAP_FAILED)
		return map_failure(err, errno, "AUX area", size, ring->fd);
	prefault(aux, size, page, NULL);
	ring->aux = aux;
	ring->aux_size = size;
	return 0;
}

void pb_ring_unmap(struct pb_ring *ring)
{
	if (ring->aux)
		pb_sys()->munmap(ring->aux, ring->aux_size);
	if (ring->base)
		pb_sys()->munmap(ring->base, ring->map_size);
	ring->aux = NULL;
	ring->aux_size = 0;
	ring->base = NULL;
	ring->map_size = 0;
	ring->meta = NULL;
	ring->data = NULL;
	ring->data_size = 0;
}

/* Copies n bytes starting at ring position pos, wrapping at the end of the data area. */
static void copy_out(const struct pb_ring *ring, uint64_t pos, void *dst, size_t n)
{
	size_t off = (size_t)(pos & (ring->data_size - 1));
	size_t first = ring->data_size - off;
	if (first > n)
		first = n;
	memcpy(dst, ring->data + off, first);
	memcpy((uint8_t *)dst + first, ring->data, n - first);
}

void pb_ring_account(const struct pb_record *rec, struct pb_ring_stats *stats)
{
	switch (rec->type) {
	case PERF_RECORD_SAMPLE:
		stats->samples++;
		break;
	case PERF_RECORD_LOST:
		stats->lost += rec->u.lost.lost;
		stats->lost_records++;
		break;
	case PERF_RECORD_LOST_SAMPLES:
		stats->lost_samples += rec->u.lost_samples.lost;
		break;
	case PERF_RECORD_THROTTLE:
		stats->throttles++;
		break;
	case PERF_RECORD_UNTHROTTLE:
		stats->unthrottles++;
		break;
	case PERF_RECORD_AUX:
		stats->aux_records++;
		stats->aux_bytes += rec->u.aux.aux_size;
		if (rec->u.aux.flags & PERF_AUX_FLAG_TRUNCATED)
			stats->aux_truncated++;
		if (rec->u.aux.flags & PERF_AUX_FLAG_OVERWRITE)
			stats->aux_overwrite++;
		if (rec->u.aux.flags & PERF_AUX_FLAG_PARTIAL)
			stats->aux_partial++;
		if (rec->u.aux.flags & PERF_AUX_FLAG_COLLISION)
			stats->aux_collision++;
		break;
	default:
		break;
	}
}

static void stats_add(struct pb_ring_stats *to, const struct pb_ring_stats *from)
{
	to->records += from->records;
	to->samples += from->samples;
	to->lost += from->lost;
	to->lost_records += from->lost_records;
	to->lost_samples += from->lost_samples;
	to->throttles += from->throttles;
	to->unthrottles += from->unthrottles;
	to->aux_records += from->aux_records;
	to->aux_bytes += from->aux_bytes;
	to->aux_truncated += from->aux_truncated;
	to->aux_partial += from->aux_partial;
	to->aux_collision += from->aux_collision;
	to->aux_overwrite += from->aux_overwrite;
	to->parse_errors += from->parse_errors;
	to->unknown += from->unknown;
	to->bytes += from->bytes;
}

void pb_ring_iter_begin(struct pb_ring_iter *it, struct pb_ring *ring,
			const struct pb_record_format *fmt)
{
	static const struct pb_record_format no_format;

	it->ring = ring;
	it->fmt = fmt ? fmt : &no_format;
	memset(&it->seen, 0, sizeof(it->seen));
	it->head = it->tail = 0;
	if (!ring->meta)
		return;
	it->head = __atomic_load_n(&ring->meta->data_head, __ATOMIC_ACQUIRE);
	it->tail = __atomic_load_n(&ring->meta->data_tail, __ATOMIC_RELAXED);
}

bool pb_ring_iter_next(struct pb_ring_iter *it, struct pb_record *rec)
{
	struct pb_ring *ring = it->ring;
	struct pb_ring_stats *stats = &it->seen;

	while (it->tail != it->head) {
		uint64_t avail = it->head - it->tail;
		struct perf_event_header h;

		/* A size the kernel cannot have written means the stream is lost from here on: no
		 * later boundary can be trusted, so everything up to head is given up. */
		if (avail > ring->data_size || avail < sizeof(h)) {
			stats->parse_errors++;
			it->tail = it->head;
			return false;
		}
		copy_out(ring, it->tail, &h, sizeof(h));
		if (h.size < sizeof(h) || h.size % 8 != 0 || h.size > avail) {
			stats->parse_errors++;
			it->tail = it->head;
			return false;
		}

		const uint8_t *bytes;
		size_t off = (size_t)(it->tail & (ring->data_size - 1));
		if (off + h.size <= ring->data_size) {
			bytes = ring->data + off;
		} else {
			copy_out(ring, it->tail, ring->scratch, h.size);
			bytes = ring->scratch;
		}

		int rc = pb_record_parse(it->fmt, bytes, h.size, rec);
		stats->records++;
		stats->bytes += h.size;
		it->tail += h.size;
		if (rc == PB_PARSE_OK) {
			pb_ring_account(rec, stats);
			return true;
		}
		if (rc == PB_PARSE_UNKNOWN) {
			stats->unknown++;
			return true;
		}
		stats->parse_errors++;
	}
	return false;
}

uint64_t pb_ring_iter_end(struct pb_ring_iter *it, struct pb_ring_stats *stats)
{
	if (!it->ring->meta)
		return 0;
	__atomic_store_n(&it->ring->meta->data_tail, it->tail, __ATOMIC_RELEASE);
	if (stats)
		stats_add(stats, &it->seen);
	return it->seen.records;
}

uint64_t pb_ring_drain(struct pb_ring *ring, const struct pb_record_format *fmt, pb_record_fn fn,
		       void *ctx, struct pb_ring_stats *stats)
{
	struct pb_ring_iter it;
	struct pb_record rec;

	pb_ring_iter_begin(&it, ring, fmt);
	while (pb_ring_iter_next(&it, &rec))
		if (fn)
			fn(ctx, &rec);
	return pb_ring_iter_end(&it, stats);
}

uint64_t pb_ring_pending(const struct pb_ring *ring)
{
	if (!ring->meta)
		return 0;
	uint64_t head = __atomic_load_n(&ring->meta->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = __atomic_load_n(&ring->meta->data_tail, __ATOMIC_RELAXED);
	return head - tail;
}

unsigned pb_ring_pages_for(uint64_t bytes, unsigned max_pages)
{
	uint64_t page = system_page_size();
	/* The cap itself must be a usable size, so it is rounded down to a power of two. */
	unsigned cap = 1;
	while (max_pages > 0 && cap <= max_pages / 2)
		cap *= 2;
	unsigned pages = 1;
	while (pages < cap && (uint64_t)pages * page < bytes)
		pages *= 2;
	return pages;
}
