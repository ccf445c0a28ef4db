#include <gtest/gtest.h>

#include "shapes/rect.hpp"

TEST(RectTest, Area) {
    shapes::Rect r(2, 3);
    EXPECT_EQ(r.area(), 6);
}

TEST(RectTest, Perimeter) {
    const shapes::Rect r(2, 3);
    EXPECT_EQ(r.perimeter(), 10);
}
