#include "check.h"
#include "mathlib.h"

int main(void) {
	CHECK_EQ(gcd(12, 18), 6);
	CHECK_EQ(gcd(7, 0), 7);
	return failures != 0;
}
