#include <stdio.h>

#include "config.h"

static const char sample[] = "# demo\nhost=example.org\nport=8443\nname=demo\n";

int main(void)
{
	struct kv kv;
	struct config c;

	if (kv_parse(&kv, sample) != 0 || config_load(&c, &kv) != 0) {
		fprintf(stderr, "kvdump: bad config\n");
		return 1;
	}
	printf("%s:%d (%s)\n", c.host, c.port, kv_get(&kv, "name"));
	return 0;
}
