#ifndef CONFIG_H
#define CONFIG_H

#include "kv.h"

struct config {
	const char *host;
	int port;
};

int config_load(struct config *c, const struct kv *kv);

#endif
