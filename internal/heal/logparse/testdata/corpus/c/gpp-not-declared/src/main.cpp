#include <iostream>

int main() {
    std::cout << greeting << std::endl;
    return 0;
}
