#ifndef USERS_H
#define USERS_H

#include <stdbool.h>
#include <stddef.h>

/* The longest user name, without its terminating NUL. */
#define USERNAME_MAX 16

/* username_valid reports whether name is 3 to USERNAME_MAX lower-case
 * letters, digits or underscores, starting with a letter. */
bool username_valid(const char *name);

/* username_normalize copies name to out (USERNAME_MAX + 1 bytes) in lower
 * case, without surrounding blanks; it returns false when the result is
 * not a valid user name. */
bool username_normalize(const char *name, char *out);

#endif
