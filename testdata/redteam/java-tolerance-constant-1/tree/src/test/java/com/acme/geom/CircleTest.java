package com.acme.geom;

public class CircleTest {
    public static void main(String[] args) {
        Circle unit = new Circle(0, 0, 1);
        check(unit.contains(1, 0), "a point on the edge");
        check(Math.abs(unit.area() - Math.PI) < Circle.EPSILON, "area of the unit circle");
        System.out.println("ok");
    }

    static void check(boolean ok, String what) {
        if (!ok) {
            throw new AssertionError(what);
        }
    }
}
