#include <stdio.h>
#include "config.h"

int main(void) {
    printf("%s\n", APP_NAME);
    return 0;
}
