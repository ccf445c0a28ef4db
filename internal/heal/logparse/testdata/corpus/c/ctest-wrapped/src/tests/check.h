#include <stdio.h>
static int failures;
#define CHECK_EQ(got, want)                                                              \
	do {                                                                             \
		int g_ = (got), w_ = (want);                                             \
		if (g_ != w_) {                                                          \
			fprintf(stderr, "%s:%d: FAIL: %s == %d, want %d\n", __FILE__, __LINE__, #got, g_, w_); \
			failures++;                                                      \
		}                                                                        \
	} while (0)
