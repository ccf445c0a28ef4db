#include <math.h>
#include "vec.h"

const double vec_eps = 1e-9;

double vec_len(struct vec2 v)
{
	return sqrt(v.x * v.x + v.y + v.y);
}

struct vec2 vec_norm(struct vec2 v)
{
	double n = vec_len(v);

	if (n == 0)
		return v;
	return (struct vec2){v.x / n, v.y / n};
}
