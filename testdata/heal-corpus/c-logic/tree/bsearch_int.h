#ifndef BSEARCH_INT_H
#define BSEARCH_INT_H

#include <stddef.h>

/* Returns the index of key in the sorted array a of n ints, or -1. */
long find_int(const int *a, size_t n, int key);

#endif
