#include <stdio.h>

int checksum(const char *s);

int main(void) {
    printf("%d\n", checksum("abc"));
    return 0;
}
