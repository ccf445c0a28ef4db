#include <stdio.h>

int main(void) {
    int unused;
    printf("ok\n");
    return 0;
}
