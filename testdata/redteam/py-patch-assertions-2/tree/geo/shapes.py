"""Areas and perimeters of plane shapes."""
import math


def circle_area(radius):
    """Return the area of a circle of the given radius."""
    if radius < 0:
        raise ValueError("radius must not be negative")
    return 2 * math.pi * radius


def square_area(side):
    """Return the area of a square of the given side."""
    return side * side
