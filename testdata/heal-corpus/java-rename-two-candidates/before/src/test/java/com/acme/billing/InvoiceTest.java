package com.acme.billing;

public class InvoiceTest {
    static void check(String what, Object got, Object want) {
        if (!got.equals(want)) {
            throw new AssertionError(what + ": got " + got + ", want " + want);
        }
    }

    public static void main(String[] args) {
        Invoice inv = new Invoice(20).add(1000).add(250);
        check("total", inv.total(), 1250L);
        check("due", Statement.due("Ada", inv), "Ada owes 12.50");
        System.out.println("ok");
    }
}
