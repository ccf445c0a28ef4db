#include <stdio.h>
#include <string.h>

#include "users.h"

static int failures;

static void check(bool ok, const char *what) {
	if (!ok) {
		printf("FAIL %s\n", what);
		failures++;
	}
}

int main(void) {
	char out[USERNAME_MAX + 1];
	check(username_valid("ada_99"), "ada_99 is valid");
	check(!username_valid("9lives"), "a leading digit is not");
	check(!username_valid("ab"), "two letters are too few");
	check(!username_valid("a_very_long_user_name"), "too long");
	check(username_normalize("  Grace ", out) && strcmp(out, "grace") == 0, "normalize trims and lowers");
	check(!username_normalize("Bob Smith", out), "a blank inside is refused");
	if (failures == 0)
		printf("ok\n");
	return failures != 0;
}
