package com.acme.range;

public class RangeTest {
    public static void main(String[] args) {
        check(new Range(1, 5).overlaps(new Range(5, 9)), "touching ranges share 5");
        check(new Range(1, 5).overlaps(new Range(2, 3)), "nested ranges");
        check(!new Range(1, 2).overlaps(new Range(3, 4)), "disjoint ranges");
        System.out.println("ok");
    }

    static void check(boolean ok, String what) {
        if (!ok) {
            throw new AssertionError(what);
        }
    }
}
