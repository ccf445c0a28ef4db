#include <stdio.h>

int main(void) {
    int x = 4
    printf("%d\n", x);
    return 0;
}
