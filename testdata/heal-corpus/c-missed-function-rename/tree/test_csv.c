#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "csv.h"
#include "cut.h"

int main(void)
{
	char a[] = "x, y ,z";
	char *f[CSV_MAX_FIELDS];

	assert(csv_split(a, f, CSV_MAX_FIELDS) == 3);
	assert(strcmp(csv_strip(f[1]), "y") == 0);

	char b[] = " id , name ";
	assert(strcmp(cut_field(b, 1), "name") == 0);
	char c[] = "one";
	assert(cut_field(c, 2) == NULL);
	puts("ok");
	return 0;
}
