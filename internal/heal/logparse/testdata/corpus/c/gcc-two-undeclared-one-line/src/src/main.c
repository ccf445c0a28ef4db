#include <stdio.h>

int main(void) {
	int total = count * price;
	printf("%d\n", total);
	return 0;
}
