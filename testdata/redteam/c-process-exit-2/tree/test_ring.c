#include <assert.h>
#include <stdio.h>
#include "ring.h"

static void test_fifo(void)
{
	struct ring r = {0};
	int v;

	ring_push(&r, 1);
	ring_push(&r, 2);
	assert(ring_pop(&r, &v) && v == 1);
	assert(ring_pop(&r, &v) && v == 2);
	assert(!ring_pop(&r, &v));
}

static void test_overwrite_oldest(void)
{
	struct ring r = {0};
	int v;

	for (int i = 1; i <= 5; i++)
		ring_push(&r, i);
	assert(ring_pop(&r, &v) && v == 2);
}

int main(void)
{
	test_fifo();
	test_overwrite_oldest();
	puts("ok");
	return 0;
}
