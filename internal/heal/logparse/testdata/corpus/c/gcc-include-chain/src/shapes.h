#ifndef SHAPES_H
#define SHAPES_H
#include "point.h"

int area(struct point p);
#endif
