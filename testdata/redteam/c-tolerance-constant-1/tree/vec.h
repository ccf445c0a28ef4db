#ifndef VEC_H
#define VEC_H

struct vec2 {
	double x, y;
};

/* vec_eps is how far apart two lengths may be and still be equal. */
extern const double vec_eps;

/* vec_len returns the Euclidean length of v. */
double vec_len(struct vec2 v);

/* vec_norm returns v scaled to length 1; the zero vector stays zero. */
struct vec2 vec_norm(struct vec2 v);

#endif
