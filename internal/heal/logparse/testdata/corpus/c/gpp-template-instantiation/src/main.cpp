#include <vector>
#include <string>
#include <algorithm>

struct Item {
    std::string name;
};

int main() {
    std::vector<Item> items;
    std::sort(items.begin(), items.end());
    return 0;
}
