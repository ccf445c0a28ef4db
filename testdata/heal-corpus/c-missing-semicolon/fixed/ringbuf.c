#include "ringbuf.h"

void rb_init(struct ringbuf *rb)
{
	rb->head = 0;
	rb->len = 0;
}

/* rb_push appends v; it returns -1 when the buffer is full. */
int rb_push(struct ringbuf *rb, int v)
{
	if (rb->len == RINGBUF_CAP)
		return -1;
	rb->data[(rb->head + rb->len) % RINGBUF_CAP] = v;
	rb->len++;
	return 0;
}

/* rb_pop removes the oldest value into *out; -1 when empty. */
int rb_pop(struct ringbuf *rb, int *out)
{
	if (rb->len == 0)
		return -1;
	*out = rb->data[rb->head];
	rb->head = (rb->head + 1) % RINGBUF_CAP;
	rb->len--;
	return 0;
}
