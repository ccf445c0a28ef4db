#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "config.h"

int main(void)
{
	struct kv kv;
	struct config c;

	assert(kv_parse(&kv, "a=1\n\n# x\nb=two\n") == 0);
	assert(kv.len == 2);
	assert(strcmp(kv_get(&kv, "b", NULL), "two") == 0);
	assert(kv_get(&kv, "c", NULL) == NULL);

	assert(kv_parse(&kv, "port=9000\n") == 0);
	assert(config_load(&c, &kv) == 0);
	assert(strcmp(c.host, "localhost") == 0 && c.port == 9000);

	assert(kv_parse(&kv, "noequals\n") == -1);
	puts("ok");
	return 0;
}
