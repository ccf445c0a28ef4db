#include <ctype.h>

#include "strutil.h"

char *rtrim(char *s)
{
	size_t n = strlen(s);

	while (n > 0 && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	return s;
}

int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return m <= n && memcmp(s + n - m, suffix, m) == 0;
}
