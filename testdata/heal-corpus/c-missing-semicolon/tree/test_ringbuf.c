#include <stdio.h>
#include "ringbuf.h"

int main(void)
{
	struct ringbuf rb;
	int v, i;

	rb_init(&rb);
	for (i = 0; i < RINGBUF_CAP; i++)
		if (rb_push(&rb, i) != 0) {
			puts("FAIL: push");
			return 1;
		}
	if (rb_push(&rb, 99) != -1) {
		puts("FAIL: push into a full buffer");
		return 1;
	}
	if (rb_pop(&rb, &v) != 0 || v != 0) {
		puts("FAIL: pop");
		return 1;
	}
	puts("ok");
	return 0;
}
