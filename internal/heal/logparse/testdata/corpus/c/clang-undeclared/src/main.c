#include <stdio.h>

static int scale(int v) { return v * factor; }

int main(void) {
    printf("%d\n", scale(2));
    return 0;
}
