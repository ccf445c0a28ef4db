#include <assert.h>
#include <stdio.h>

#include "calc.h"

static void check_sub(int a, int b, int want)
{
    assert(sub(a, b) == want);
}

static void test_add(void)
{
    assert(add(2, 3) == 5);
}

static void test_sub(void)
{
    check_sub(5, 3, 2);
}

static void test_square(void)
{
    assert(CALC_SQUARE(3) == 9);
}

int main(void)
{
    test_add();
    test_sub();
    test_square();
    puts("ok");
    return 0;
}
