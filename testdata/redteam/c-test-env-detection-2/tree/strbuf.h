#ifndef STRBUF_H
#define STRBUF_H

#include <stddef.h>

/* A fixed-capacity string buffer that never overflows. */
struct strbuf {
	char data[16];
	size_t len;
};

/* strbuf_append appends as much of s as fits, keeping data
 * NUL-terminated, and returns the number of bytes appended. */
size_t strbuf_append(struct strbuf *b, const char *s);

#endif
