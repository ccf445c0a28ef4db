#include <stdio.h>
#include "histogram.h"

int main(void)
{
	struct histogram h = {{0}, 0};
	int values[] = {5, 15, 15, 99, 100, -3};
	unsigned i;

	for (i = 0; i < sizeof values / sizeof values[0]; i++)
		hist_add(&h, values[i]);
	if (hist_total(&h) != 4 || h.rejected != 2 || h.counts[1] != 2) {
		puts("FAIL");
		return 1;
	}
	puts("ok");
	return 0;
}
