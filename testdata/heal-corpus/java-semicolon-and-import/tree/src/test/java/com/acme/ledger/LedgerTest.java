package com.acme.ledger;

public class LedgerTest {
    public static void main(String[] args) {
        Ledger l = new Ledger();
        l.post("opening balance", 10_000);
        l.post("coffee", -350);
        l.post("refund", 120);
        if (l.balance() != 9_770) {
            throw new AssertionError("balance: got " + l.balance());
        }
        if (l.entries().size() != 3 || !l.entries().get(1).memo().equals("coffee")) {
            throw new AssertionError("entries: got " + l.entries());
        }
        try {
            l.entries().clear();
            throw new AssertionError("entries() must be read-only");
        } catch (UnsupportedOperationException expected) {
            // read-only, as documented
        }
        System.out.println("ok");
    }
}
