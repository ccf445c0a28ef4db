#include <limits.h>
#include <stdio.h>

static int scale(int x, int by) {
	return x * by;
}

static int shift(int x, int n) {
	return x << n;
}

int main(void) {
	int a = scale(INT_MAX / 2, 3);
	int b = shift(1, 40);
	printf("%d %d\n", a, b);
	return 0;
}
