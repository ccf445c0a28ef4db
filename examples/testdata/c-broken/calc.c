#include "calc.h"

/* add returns the sum of a and b. */
int add(int a, int b) {
    int sum = a + b // the whole point
    return sum;
}

/* scale multiplies x by factor. */
int scale(int x, int factor) {
    return x * factor;
}
