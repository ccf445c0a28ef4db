#include <assert.h>
#include <stdio.h>

static int sum_below(int n) {
	int t = 0;
	for (int i = 1; i < n; i++)
		t += i;
	return t;
}

int main(void) {
	int total = sum_below(4);
	assert(total == 10);
	printf("%d\n", total);
	return 0;
}
