package com.acme.geo;

/** A point of the plane. */
public final class Point {
    public final double x;
    public final double y;

    public Point(double x, double y) {
        this.x = x;
        this.y = y;
    }
}
