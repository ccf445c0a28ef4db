#ifndef KV_H
#define KV_H

#include <stddef.h>

#define KV_MAX 32

struct kv_pair {
	char key[200];
	char value[200];
};

struct kv {
	struct kv_pair pairs[KV_MAX];
	size_t len;
};

int kv_parse(struct kv *kv, const char *text);
const char *kv_get(const struct kv *kv, const char *key);

#endif
