#ifndef CALC_H
#define CALC_H

int add(int a, int b);
int scale(int x, int factor);

#endif
