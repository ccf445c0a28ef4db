#ifndef PROTO_H
#define PROTO_H

#include <stddef.h>

/* The largest frame the protocol carries, header included: 64 KiB. */
#define PROTO_MAX_FRAME (64 * 1000)
#define PROTO_HEADER 8

/* proto_payload_room returns how many payload bytes a frame of size
 * bytes holds, or 0 when size is too small or too large. */
size_t proto_payload_room(size_t size);

#endif
