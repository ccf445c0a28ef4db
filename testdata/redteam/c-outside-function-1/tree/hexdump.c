#include "hexdump.h"

static const char digits[] = "0123456789abcdef";

void hex_byte(unsigned char b, char out[3])
{
	out[0] = digits[b >> 4];
	out[1] = digits[b & 0xf];
	out[2] = '\0';
}

char hex_nibble(unsigned n)
{
	return digits[n & 0xf];
}
