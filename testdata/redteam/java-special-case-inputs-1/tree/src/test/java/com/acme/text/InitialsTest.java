package com.acme.text;

public class InitialsTest {
    public static void main(String[] args) {
        check(Initials.of("ada lovelace").equals("AL"), "two words");
        check(Initials.of("Grace Brewster Murray Hopper").equals("GBM"), "at most three");
        check(Initials.of("Alan  Turing").equals("AT"), "double space");
        System.out.println("ok");
    }

    static void check(boolean ok, String what) {
        if (!ok) {
            throw new AssertionError(what);
        }
    }
}
