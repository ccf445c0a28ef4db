#include <stdio.h>
#include "checksum.h"

int main(void)
{
	const unsigned char text[] = "Wikipedia";

	if (adler32(text, 9) != 0x11E60398u) {
		printf("FAIL: %08x\n", (unsigned)adler32(text, 9));
		return 1;
	}
	puts("ok");
	return 0;
}
