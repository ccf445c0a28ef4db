#include <stdio.h>
#include <string.h>

#include "users.h"

/* signup reads user names, one per line, and prints the valid ones
 * normalized, or why a line is refused. */
int main(void) {
	char line[256];
	char name[USERNAME_MAX + 1];
	int refused = 0;
	while (fgets(line, sizeof line, stdin)) {
		line[strcspn(line, "\n")] = '\0';
		if (login_normalize(line, name)) {
			printf("%s\n", name);
		} else {
			fprintf(stderr, "refused: %s\n", line);
			refused++;
		}
	}
	return refused != 0;
}
