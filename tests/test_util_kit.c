/* The shared kit: array length, the monotonic clock and little-endian loads. */
#include "check.h"
#include "util/kit.h"

#include <time.h>

struct wide {
	char name[40];
	uint64_t value;
};

int main(void)
{
	static const struct wide rows[] = {{"a", 1}, {"b", 2}, {"c", 3}};
	static const char letters[] = "abcdefg";  /* the terminating NUL is an element */
	uint16_t halves[11];
	(void)halves;
	CHECK_EQ_U64(PB_ARRAY_SIZE(rows), 3);
	CHECK_EQ_U64(PB_ARRAY_SIZE(letters), 8);
	CHECK_EQ_U64(PB_ARRAY_SIZE(halves), 11);

	/* Little-endian whatever the host: the first byte is the lowest. */
	const uint8_t bytes[9] = {0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef, 0xff};
	CHECK_EQ_U64(pb_load_le(bytes, 0), 0);
	CHECK_EQ_U64(pb_load_le(bytes, 1), 0x01);
	CHECK_EQ_U64(pb_load_le(bytes, 2), 0x2301);
	CHECK_EQ_U64(pb_load_le(bytes, 4), 0x67452301);
	CHECK_EQ_U64(pb_load_le(bytes + 1, 3), 0x674523);
	CHECK_EQ_U64(pb_load_le(bytes, 8), 0xefcdab8967452301ull);
	/* never more than 8 bytes, even when asked: the ninth must not be read into the value */
	CHECK_EQ_U64(pb_load_le(bytes, 9), 0xefcdab8967452301ull);

	/* The clock is monotonic and counts nanoseconds: a 20 ms sleep advances it by at least
	 * that, and by far less than a second (no microseconds or seconds mistaken for ns). */
	uint64_t a = pb_now_ns();
	struct timespec nap = {0, 20 * 1000 * 1000};
	nanosleep(&nap, NULL);
	uint64_t b = pb_now_ns();
	CHECK(b >= a + 20 * 1000 * 1000);
	CHECK(b - a < 5ull * 1000 * 1000 * 1000);
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	uint64_t c = pb_now_ns();
	uint64_t ref = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	CHECK(c >= ref && c - ref < 1000ull * 1000 * 1000);
	/* The thread's CPU clock stands (nearly) still while it sleeps, unlike a wall clock, and
	 * moves while it spins, unlike a stuck one. Its rate is not compared with the wall clock's:
	 * in a VM the scheduler's clock and CLOCK_MONOTONIC drift apart (a check that 5 ms of
	 * thread CPU took at least 5 ms of wall time failed in CI). */
	uint64_t cpu0 = pb_thread_cpu_ns(), wall0 = pb_now_ns();
	nanosleep(&nap, NULL);
	uint64_t cpu1 = pb_thread_cpu_ns(), wall1 = pb_now_ns();
	CHECK(wall1 - wall0 >= 20 * 1000 * 1000);
	CHECK(cpu1 - cpu0 < 10 * 1000 * 1000);
	while (pb_now_ns() - wall1 < 20 * 1000 * 1000)
		;
	CHECK(pb_thread_cpu_ns() > cpu1);
	/* A growing array: doubles from its first size, keeps what it held, never shrinks. */
	uint32_t *v = NULL;
	size_t cap = 0;
	bool kept = true;
	for (uint32_t i = 0; i < 1000; i++) {
		if (pb_grow(&v, &cap, i, sizeof *v, 16)) {
			kept = false;
			break;
		}
		v[i] = i * 7;
	}
	CHECK(kept);
	CHECK_EQ_U64(cap, 1024);    /* 16, 32, ..., 1024 */
	for (uint32_t i = 0; i < 1000 && kept; i++)
		kept = v[i] == i * 7;
	CHECK(kept);
	CHECK(pb_grow(&v, &cap, 10, sizeof *v, 16) == 0 && cap == 1024);   /* room already */
	/* a size that cannot be allocated fails and leaves the array as it was */
	uint32_t *before = v;
	size_t huge = SIZE_MAX / 4;
	CHECK(pb_grow(&v, &huge, huge, sizeof *v, 16) == -1);
	CHECK(v == before && huge == SIZE_MAX / 4 && v[999] == 999 * 7);
	free(v);
	return pb_check_done("util_kit");
}
