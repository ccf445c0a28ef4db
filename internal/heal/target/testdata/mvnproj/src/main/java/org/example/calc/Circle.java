package org.example.calc;

/** A circle in the plane. */
public record Circle(double x, double y, double r) {
    /** The area enclosed by the circle. */
    public double area() {
        return 2 * Math.PI * r * r;
    }
}
