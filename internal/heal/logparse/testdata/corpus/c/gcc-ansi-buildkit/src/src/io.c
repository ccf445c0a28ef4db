#include <stdio.h>

void dump(FILE *f, const char *s) {
    fprintf(f, "%s\n", s)
}
