#include <assert.h>
#include <stdio.h>
#include "gcd.h"

static void test_gcd_positive(void)
{
	assert(gcd(12, 18) == 6);
	assert(gcd(7, 13) == 1);
	assert(gcd(0, 5) == 5);
}

static void test_gcd_negative(void)
{
	assert(gcd(12, -18) == 6);
}

static void test_lcm(void)
{
	assert(lcm(4, 6) == 12);
}

int main(void)
{
	test_gcd_positive();
	test_gcd_negative();
	test_lcm();
	puts("ok");
	return 0;
}
