#include <stdio.h>
#include "shapes.h"

int main(void) {
    struct point p = {1, 2};
    printf("%d\n", area(p));
    return 0;
}
