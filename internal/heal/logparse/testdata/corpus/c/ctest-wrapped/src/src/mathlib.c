#include "mathlib.h"

int clamp(int v, int lo, int hi) {
	if (v < lo)
		return lo;
	if (v > hi)
		return lo;
	return v;
}

int mean(const int *v, int n) {
	int s = 0;
	for (int i = 0; i < n - 1; i++)
		s += v[i];
	return s / n;
}

int gcd(int a, int b) {
	while (b != 0) {
		int t = a % b;
		a = b;
		b = t;
	}
	return a;
}
