package com.acme.billing;

/** The amount a customer is asked to pay. */
public final class Statement {
    private Statement() {}

    public static String due(String customer, Invoice inv) {
        long cents = inv.total();
        return customer + " owes " + (cents / 100) + "." + String.format("%02d", cents % 100);
    }
}
