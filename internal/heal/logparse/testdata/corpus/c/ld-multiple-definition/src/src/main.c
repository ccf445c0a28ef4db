#include <stdio.h>

int helper(int x) {
	return x * 2;
}

int main(void) {
	printf("%d\n", helper(2));
	return 0;
}
