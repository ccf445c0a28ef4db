#include <string.h>
#include "strbuf.h"

size_t strbuf_append(struct strbuf *b, const char *s)
{
	size_t room = sizeof b->data - b->len;
	size_t n = strlen(s);

	if (n > room)
		n = room;
	memcpy(b->data + b->len, s, n);
	b->len += n;
	b->data[b->len < sizeof b->data ? b->len : sizeof b->data - 1] = '\0';
	return n;
}
