#include <stdio.h>
#include "b.h"
int main(void) {
    int unused;
    char *s = 5;
    printf("%d\n", twice(2, 3));
    return 0;
}
