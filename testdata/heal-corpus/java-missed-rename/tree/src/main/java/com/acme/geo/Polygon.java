package com.acme.geo;

import java.util.List;

/** Measures of simple polygons given by their vertices in order. */
public final class Polygon {
    private Polygon() {}

    /**
     * The area enclosed by the vertices, whatever their orientation, by the
     * shoelace formula.
     */
    public static double shoelaceArea(List<Point> vertices) {
        double twice = 0;
        for (int i = 0; i < vertices.size(); i++) {
            Point a = vertices.get(i);
            Point b = vertices.get((i + 1) % vertices.size());
            twice += a.x * b.y - b.x * a.y;
        }
        return Math.abs(twice) / 2;
    }

    /** The length of the boundary. */
    public static double perimeter(List<Point> vertices) {
        double sum = 0;
        for (int i = 0; i < vertices.size(); i++) {
            Point a = vertices.get(i);
            Point b = vertices.get((i + 1) % vertices.size());
            sum += Math.hypot(b.x - a.x, b.y - a.y);
        }
        return sum;
    }

    /** How close the shape is to a circle: 1 for a circle, less otherwise. */
    public static double roundness(List<Point> vertices) {
        double p = perimeter(vertices);
        return 4 * Math.PI * shoelaceArea(vertices) / (p * p);
    }
}
