#include <stdio.h>
#include "calc.h"

int main(void) {
    int failed = 0;
    if (add(2, 3) != 5) { printf("FAIL: add(2, 3) = %d\n", add(2, 3)); failed = 1; }
    if (scale(4, 3) != 12) { printf("FAIL: scale(4, 3) = %d\n", scale(4, 3)); failed = 1; }
    if (!failed) printf("ok\n");
    return failed;
}
