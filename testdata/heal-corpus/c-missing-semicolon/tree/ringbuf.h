#ifndef RINGBUF_H
#define RINGBUF_H

#include <stddef.h>

#define RINGBUF_CAP 8

/* A fixed-size ring buffer of ints. */
struct ringbuf {
	int data[RINGBUF_CAP];
	size_t head, len;
};

void rb_init(struct ringbuf *rb);
int rb_push(struct ringbuf *rb, int v);
int rb_pop(struct ringbuf *rb, int *out);

#endif
