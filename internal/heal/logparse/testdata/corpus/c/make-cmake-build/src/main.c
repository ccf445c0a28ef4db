#include <stdio.h>

int main(void) {
    const char *name = "demo";
    printf("%s\n", nam);
    return 0;
}
