#include "proto.h"

size_t proto_payload_room(size_t size)
{
	if (size < PROTO_HEADER || size > PROTO_MAX_FRAME)
		return 0;
	return size - PROTO_HEADER;
}
