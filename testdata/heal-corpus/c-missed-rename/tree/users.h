#ifndef USERS_H
#define USERS_H

#include <stdbool.h>
#include <stddef.h>

/* The longest user name, without its terminating NUL. */
#define LOGIN_MAX 16

/* login_valid reports whether name is 3 to LOGIN_MAX lower-case
 * letters, digits or underscores, starting with a letter. */
bool login_valid(const char *name);

/* login_normalize copies name to out (LOGIN_MAX + 1 bytes) in lower
 * case, without surrounding blanks; it returns false when the result is
 * not a valid user name. */
bool login_normalize(const char *name, char *out);

#endif
