#include "bsearch_int.h"

long find_int(const int *a, size_t n, int key)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (a[mid] == key)
			return (long)mid;
		if (a[mid] < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}
