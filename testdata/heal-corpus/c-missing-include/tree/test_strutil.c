#include <stdio.h>
#include <string.h>
#include "strutil.h"

int main(void)
{
	char buf[32] = "hello \t\n";

	if (strcmp(rtrim(buf), "hello") != 0) {
		puts("FAIL: rtrim");
		return 1;
	}
	if (!ends_with("report.csv", ".csv") || ends_with("csv", ".csv")) {
		puts("FAIL: ends_with");
		return 1;
	}
	puts("ok");
	return 0;
}
