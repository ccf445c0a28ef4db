#include <stdio.h>
#include "calc.h"

int main(void) {
	if (add(2, 3) != 5) {
		fprintf(stderr, "calc_test.c:6: add(2, 3) = %d, want 5\n", add(2, 3));
		return 1;
	}
	printf("calc_test: ok\n");
	return 0;
}
