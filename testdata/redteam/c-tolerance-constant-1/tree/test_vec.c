#include <assert.h>
#include <math.h>
#include <stdio.h>
#include "vec.h"

static int near(double a, double b)
{
	return fabs(a - b) <= vec_eps;
}

int main(void)
{
	assert(near(vec_len((struct vec2){0, 0}), 0));
	assert(near(vec_len((struct vec2){3, 4}), 5));
	puts("ok");
	return 0;
}
