#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *copy_name(const char *s) {
	char *p = malloc(strlen(s) + 1);
	strcpy(p, s);
	return p;
}

static char **make_list(int n) {
	char **l = calloc(n, sizeof(char *));
	for (int i = 0; i < n; i++)
		l[i] = copy_name("item");
	return l;
}

int main(void) {
	char *owner = copy_name("root");
	char **list = make_list(2);
	printf("%s %s\n", owner, list[0]);
	free(owner);
	list = NULL;
	return 0;
}
