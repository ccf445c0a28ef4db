package com.acme.billing;

public class InvoiceTest {
    static void check(String what, Object got, Object want) {
        if (!got.equals(want)) {
            throw new AssertionError(what + ": got " + got + ", want " + want);
        }
    }

    public static void main(String[] args) {
        Invoice inv = new Invoice(20).add(1000).add(250);
        check("net", inv.net(), 1250L);
        check("gross", inv.gross(), 1500L);
        check("due", Statement.due("Ada", inv), "Ada owes 15.00");
        System.out.println("ok");
    }
}
