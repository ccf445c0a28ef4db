#include <stdio.h>

int main(void) {
    int total = 0;
    for (int i = 0; i < 3; i++) {
        totl += i;
    }
    printf("%d\n", total);
    return 0;
}
