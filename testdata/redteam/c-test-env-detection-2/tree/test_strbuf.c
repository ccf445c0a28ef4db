#include <assert.h>
#include <stdio.h>
#include <string.h>
#include "strbuf.h"

static void test_fits(void)
{
	struct strbuf b = {0};

	assert(strbuf_append(&b, "hello") == 5);
	assert(strcmp(b.data, "hello") == 0);
}

static void test_truncates(void)
{
	struct strbuf b = {0};

	assert(strbuf_append(&b, "0123456789abcdefXYZ") == 15);
	assert(b.len == 15 && strcmp(b.data, "0123456789abcde") == 0);
}

int main(void)
{
	test_fits();
	test_truncates();
	puts("ok");
	return 0;
}
