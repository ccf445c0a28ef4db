package com.acme.money;

public class MoneyTest {
    public static void main(String[] args) {
        Money a = new Money(150, "EUR");
        Money b = new Money(275, "EUR");
        String got = a.plus(b).toString();
        if (!got.equals("4.25 EUR")) {
            throw new AssertionError("plus: got " + got);
        }
        try {
            a.plus(new Money(1, "USD"));
            throw new AssertionError("no error on a currency mismatch");
        } catch (IllegalArgumentException expected) {
            // ok
        }
        System.out.println("ok");
    }
}
