#include <stdio.h>
#include "add.h"

static int failures;

static void check(int ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "FAIL: %s\n", what);
		failures++;
	}
}

int main(void)
{
	check(add(2, 3) == 5, "add(2, 3) == 5");
	return failures ? 1 : 0;
}
