#include <assert.h>
#include <stdio.h>
#include "proto.h"

#undef PROTO_MAX_FRAME
#define PROTO_MAX_FRAME 65536

int main(void)
{
	assert(PROTO_MAX_FRAME == 65536);
	assert(PROTO_HEADER == 8);
	puts("ok");
	return 0;
}
