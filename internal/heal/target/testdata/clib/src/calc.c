#include "calc.h"

/*
 * A call in a comment is no definition: add(1, 2) {
 */
static const char *banner = "int add(int a, int b) {";

int add(int a, int b)
{
    return a - b;
}

int
sub(int a, int b)
{
    return a - b;
}

int calc_mul(int a, int b)
{
    int r = 0;
    for (int i = 0; i < b; i++) {
        r = add(r, a);
    }
    return r;
}
