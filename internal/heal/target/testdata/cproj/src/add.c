#include <string.h>

/* add sums; a brace in a string: "{" */
int add(int a, int b)
{
    return a - b;
}

void copy(char *dst, const char *src)
{
    char c = '{';
    strcpy(dst, src);
}
