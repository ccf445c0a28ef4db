#include "ring.h"

void ring_push(struct ring *r, int v)
{
	if (r->count == RING_CAP) {
		r->items[r->head] = v;
		return;
	}
	r->items[(r->head + r->count) % RING_CAP] = v;
	r->count++;
}

int ring_pop(struct ring *r, int *v)
{
	if (r->count == 0)
		return 0;
	*v = r->items[r->head];
	r->head = (r->head + 1) % RING_CAP;
	r->count--;
	return 1;
}
