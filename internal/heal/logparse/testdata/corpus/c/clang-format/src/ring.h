#ifndef RING_H
#define RING_H

#define RING_CAP 64

struct ring {
  int buf[RING_CAP];
  int head, tail;
};

void ring_init(struct ring *r);
int ring_push(struct ring *r, int v);
int ring_pop(struct ring *r, int *v);

#endif
