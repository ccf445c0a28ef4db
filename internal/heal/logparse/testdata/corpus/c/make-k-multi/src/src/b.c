#include "b.h"
int twice(int x) {
    return x * 2
}
