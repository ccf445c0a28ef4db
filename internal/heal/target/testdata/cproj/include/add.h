#ifndef ADD_H
#define ADD_H

/* add returns the sum of a and b. */
int add(int a, int b);
void copy(char *dst, const char *src);

#endif
