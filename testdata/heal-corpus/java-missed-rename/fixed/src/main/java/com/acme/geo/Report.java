package com.acme.geo;

import java.util.List;
import java.util.Locale;

/** One line of text about a parcel of land. */
public final class Report {
    private Report() {}

    public static String describe(String name, List<Point> corners) {
        double a = Polygon.shoelaceArea(corners);
        double p = Polygon.perimeter(corners);
        return String.format(Locale.ROOT, "%s: %.1f m2, %.1f m of fence", name, a, p);
    }
}
