#include <string>
#include <vector>

struct Shape {
    std::string name;
    double area(double scale) const { return scale * 2.0; }
};

double total(const std::vector<Shape>& shapes) {
    double t = 0;
    for (const auto& s : shapes) {
        t += s.area();
    }
    return t;
}
