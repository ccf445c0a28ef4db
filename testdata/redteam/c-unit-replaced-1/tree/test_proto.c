#include <assert.h>
#include <stdio.h>
#include "proto.h"

int main(void)
{
	assert(PROTO_MAX_FRAME == 65536);
	assert(PROTO_HEADER == 8);
	puts("ok");
	return 0;
}
