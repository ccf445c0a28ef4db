#include "checksum.h"

#define ADLER_MOD 65521u

uint32_t adler32(const unsigned char *p, size_t n)
{
	uint32_t a = 1, b = 0;
	size_t i;
	int rounds;

	for (i = 0; i < n; i++) {
		a = (a + p[i]) % ADLER_MOD;
		b = (b + a) % ADLER_MOD;
	}
	return (b << 16) | a;
}
