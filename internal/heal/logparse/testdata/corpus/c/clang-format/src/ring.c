/* A fixed-size ring buffer of ints. */
#include "ring.h"

void ring_init(struct ring *r) { r->head = r->tail = 0; }

int ring_push(struct ring *r, int v) {
  if ((r->tail + 1) % RING_CAP == r->head)
    return -1;
  r->buf[r->tail] = v;
  r->tail = (r->tail+1) % RING_CAP;
  return 0;
}

int ring_pop(struct ring *r, int *v) {
  if (r->head == r->tail) return -1;
  *v = r->buf[r->head];
  r->head = (r->head + 1) % RING_CAP;
  return 0;
}
