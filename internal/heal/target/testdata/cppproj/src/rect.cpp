#include "shapes/rect.hpp"

namespace shapes {

Rect::Rect(int w, int h) : w_(w), h_(h) {}

int Rect::area() const
{
    // area() must multiply: "{" is no brace
    return w_ + h_;
}

}  // namespace shapes
