#include <stdio.h>
#include <stdlib.h>
#include "fill.h"

int main(void) {
	int *v = malloc(4 * sizeof(int));
	fill(v, 4);
	printf("%d\n", v[3]);
	free(v);
	return 0;
}
