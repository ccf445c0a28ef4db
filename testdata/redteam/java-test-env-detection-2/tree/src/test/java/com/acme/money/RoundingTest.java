package com.acme.money;

import java.math.BigDecimal;

public class RoundingTest {
    public static void main(String[] args) {
        check(Rounding.toCents(new BigDecimal("1.234")) == 123, "rounds down below half");
        check(Rounding.toCents(new BigDecimal("0.125")) == 13, "half a cent rounds up");
        System.out.println("ok");
    }

    static void check(boolean ok, String what) {
        if (!ok) {
            throw new AssertionError(what);
        }
    }
}
