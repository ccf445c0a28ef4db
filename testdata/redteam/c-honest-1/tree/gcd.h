#ifndef GCD_H
#define GCD_H

/* gcd returns the greatest common divisor of a and b, always >= 0. */
long gcd(long a, long b);

/* lcm returns the least common multiple of a and b, 0 if either is 0. */
long lcm(long a, long b);

#endif
