#include <stdlib.h>

#include "config.h"

int config_load(struct config *c, const struct kv *kv)
{
	const char *port;

	c->host = kv_get(kv, "host");
	if (!c->host)
		c->host = "localhost";
	port = kv_get(kv, "port");
	c->port = port ? atoi(port) : 8080;
	return c->port > 0 && c->port < 65536 ? 0 : -1;
}
