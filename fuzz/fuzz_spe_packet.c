/* Fuzzes the SPE packet decoder and record grouping with arbitrary AUX byte streams, copied to
 * an exact-size buffer so AddressSanitizer sees any read past the stream. Checks the decoder's
 * promises: progress on every call, packets and records inside the stream, and records that
 * tile the stream without overlap. */
#include "facilities/spe_packet.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *buf = malloc(size ? size : 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);

	for (size_t pos = 0; pos < size;) {
		struct pb_spe_packet p;
		size_t n = pb_spe_packet_decode(buf, size, pos, &p);
		if (n == 0 || n > size - pos || p.len != n)
			abort();
		pos += n;
	}

	struct pb_spe_decoder d;
	struct pb_spe_record r;
	size_t last_end = 0;
	pb_spe_decoder_init(&d, buf, size);
	while (pb_spe_next_record(&d, &r) == 1) {
		if (r.offset < last_end || r.length == 0 || r.offset + r.length > size)
			abort();
		last_end = r.offset + r.length;
	}
	free(buf);
	return 0;
}
