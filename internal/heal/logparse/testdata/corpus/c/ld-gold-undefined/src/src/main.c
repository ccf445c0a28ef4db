#include <stdio.h>

int parse_args(int argc, char **argv);

int main(int argc, char **argv) {
    if (parse_args(argc, argv) != 0) {
        return 1;
    }
    puts("ok");
    return 0;
}
