#ifndef CALC_H
#define CALC_H

/* Integer helpers. add(a, b) returns a + b. */
int add(int a, int b);
int sub(int a, int b);
int calc_mul(int a, int b);

/* Squares x through calc_mul. */
#define CALC_SQUARE(x) calc_mul((x), \
                                (x))

#endif
