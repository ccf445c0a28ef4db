#include <stdio.h>
int main(void) { printf("cmake calc_test: ok\n"); return 0; }
