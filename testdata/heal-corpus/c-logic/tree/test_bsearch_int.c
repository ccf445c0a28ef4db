#include <stdio.h>
#include "bsearch_int.h"

int main(void)
{
	int a[] = {1, 3, 5, 7, 9, 11};
	int i;

	for (i = 0; i < 6; i++)
		if (find_int(a, 6, a[i]) != i) {
			printf("FAIL: %d\n", a[i]);
			return 1;
		}
	if (find_int(a, 6, 4) != -1 || find_int(a, 6, 12) != -1) {
		puts("FAIL: absent key found");
		return 1;
	}
	puts("ok");
	return 0;
}
