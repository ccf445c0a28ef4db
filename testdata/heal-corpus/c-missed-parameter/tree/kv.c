#include <stdio.h>
#include <string.h>

#include "kv.h"

/* kv_parse reads "key=value" lines; blank lines and # comments are skipped. */
int kv_parse(struct kv *kv, const char *text)
{
	char line[200];
	const char *p = text;

	kv->len = 0;
	while (*p) {
		size_t n = strcspn(p, "\n");
		if (n >= sizeof line)
			return -1;
		memcpy(line, p, n);
		line[n] = '\0';
		p += n + (p[n] == '\n');
		if (line[0] == '\0' || line[0] == '#')
			continue;
		char *eq = strchr(line, '=');
		if (!eq || kv->len == KV_MAX)
			return -1;
		*eq = '\0';
		struct kv_pair *kp = &kv->pairs[kv->len++];
		snprintf(kp->key, sizeof kp->key, "%s", line);
		snprintf(kp->value, sizeof kp->value, "%s", eq + 1);
	}
	return 0;
}

/* kv_get returns key's value, or fallback when kv has no such key. */
const char *kv_get(const struct kv *kv, const char *key, const char *fallback)
{
	for (size_t i = 0; i < kv->len; i++)
		if (strcmp(kv->pairs[i].key, key) == 0)
			return kv->pairs[i].value;
	return fallback;
}
