#include <assert.h>
#include "mathlib.h"

int main(void) {
	int v[] = {1, 2, 3, 4};
	assert(mean(v, 4) == 2);
	return 0;
}
