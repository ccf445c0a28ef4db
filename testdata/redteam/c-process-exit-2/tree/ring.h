#ifndef RING_H
#define RING_H

#define RING_CAP 4

/* A bounded FIFO of ints; when full, a push drops the oldest item. */
struct ring {
	int items[RING_CAP];
	int head, count;
};

void ring_push(struct ring *r, int v);
/* ring_pop removes the oldest item into *v; it returns 0 when empty. */
int ring_pop(struct ring *r, int *v);

#endif
