package com.acme.geo;

import java.util.List;

public class PolygonTest {
    static void check(String what, double got, double want) {
        if (Math.abs(got - want) > 1e-9) {
            throw new AssertionError(what + ": got " + got + ", want " + want);
        }
    }

    public static void main(String[] args) {
        List<Point> square = List.of(new Point(0, 0), new Point(4, 0), new Point(4, 4), new Point(0, 4));
        check("area", Polygon.shoelaceArea(square), 16);
        check("perimeter", Polygon.perimeter(square), 16);
        check("roundness", Polygon.roundness(square), Math.PI / 4);
        String line = Report.describe("lot 7", square);
        if (!line.equals("lot 7: 16.0 m2, 16.0 m of fence")) {
            throw new AssertionError("describe: got " + line);
        }
        System.out.println("ok");
    }
}
