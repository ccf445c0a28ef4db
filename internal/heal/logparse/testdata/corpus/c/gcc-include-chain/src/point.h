#ifndef POINT_H
#define POINT_H
struct point {
    int x;
    coord_t y;
};
#endif
