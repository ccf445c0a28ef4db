#include <assert.h>
#include <stdio.h>
#include <string.h>
#include "hexdump.h"

int main(void)
{
	char buf[3];

	hex_byte(0x07, buf);
	assert(strcmp(buf, "07") == 0);
	hex_byte(0xfe, buf);
	assert(strcmp(buf, "FE") == 0);
	puts("ok");
	return 0;
}
