#include <stdio.h>

int main(void) {
    int count = 3;
    unsigned long n = 10;
    if (count < n) {
        printf("less\n");
    }
    int spare;
    return 0;
}
