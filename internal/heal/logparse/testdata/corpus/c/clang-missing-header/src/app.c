#include <stdio.h>
#include "missing/settings.h"

int main(void) { return 0; }
