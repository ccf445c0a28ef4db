#include "check.h"
#include "mathlib.h"

int main(void) {
	CHECK_EQ(clamp(5, 0, 10), 5);
	CHECK_EQ(clamp(-1, 0, 10), 0);
	CHECK_EQ(clamp(11, 0, 10), 10);
	return failures != 0;
}
