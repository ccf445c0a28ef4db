#ifndef STRUTIL_H
#define STRUTIL_H

#include <stddef.h>

/* Removes trailing whitespace from s in place and returns s. */
char *rtrim(char *s);
/* Returns 1 when s ends with suffix. */
int ends_with(const char *s, const char *suffix);

#endif
