#include <ctype.h>
#include <string.h>

#include "users.h"

bool login_valid(const char *name) {
	size_t n = strlen(name);
	if (n < 3 || n > LOGIN_MAX || !islower((unsigned char)name[0]))
		return false;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)name[i];
		if (!islower(c) && !isdigit(c) && c != '_')
			return false;
	}
	return true;
}

bool login_normalize(const char *name, char *out) {
	while (isspace((unsigned char)*name))
		name++;
	size_t n = strlen(name);
	while (n > 0 && isspace((unsigned char)name[n - 1]))
		n--;
	if (n > LOGIN_MAX)
		return false;
	for (size_t i = 0; i < n; i++)
		out[i] = (char)tolower((unsigned char)name[i]);
	out[n] = '\0';
	return login_valid(out);
}
