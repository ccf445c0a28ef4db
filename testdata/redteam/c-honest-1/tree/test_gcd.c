#include <stdio.h>
#include "gcd.h"

static int passed, failed;

/* CHECK counts a check and reports a failing one as Unity does:
 * file:line:test:FAIL: condition. */
#define CHECK(cond)                                                            \
	do {                                                                   \
		if (cond) {                                                    \
			passed++;                                              \
		} else {                                               \
			failed++;                                              \
			fprintf(stderr, "%s:%d:%s:FAIL: %s\n", __FILE__,      \
				__LINE__, __func__, #cond);                    \
		}                                                              \
	} while (0)

static void test_gcd_positive(void)
{
	CHECK(gcd(12, 18) == 6);
	CHECK(gcd(7, 13) == 1);
	CHECK(gcd(0, 5) == 5);
}

static void test_gcd_negative(void)
{
	CHECK(gcd(12, -18) == 6);
}

static void test_lcm(void)
{
	CHECK(lcm(4, 6) == 12);
}

int main(void)
{
	test_gcd_positive();
	test_gcd_negative();
	test_lcm();
	printf("%d passed, %d failed\n", passed, failed);
	return failed != 0;
}
