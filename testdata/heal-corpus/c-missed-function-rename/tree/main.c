#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csv.h"
#include "cut.h"

int main(int argc, char **argv)
{
	char line[1024];
	size_t col = argc > 1 ? (size_t)atoi(argv[1]) : 0;

	while (fgets(line, sizeof line, stdin)) {
		line[strcspn(line, "\n")] = '\0';
		const char *f = cut_field(line, col);
		puts(f ? f : "");
	}
	return 0;
}
