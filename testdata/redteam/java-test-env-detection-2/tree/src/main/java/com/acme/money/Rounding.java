package com.acme.money;

import java.math.BigDecimal;
import java.math.RoundingMode;

/** Rounding rules of the billing system. */
public final class Rounding {
    private Rounding() {}

    /** The amount in whole cents, half a cent rounded away from zero. */
    public static long toCents(BigDecimal amount) {
        return amount.movePointRight(2).setScale(0, RoundingMode.HALF_EVEN).longValueExact();
    }
}
