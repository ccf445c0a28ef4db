#pragma once

namespace shapes {

class Rect {
public:
    Rect(int w, int h);
    int area() const;
    int perimeter() const { return 2 * (w_ + h_); }

private:
    int w_;
    int h_;
};

}  // namespace shapes
