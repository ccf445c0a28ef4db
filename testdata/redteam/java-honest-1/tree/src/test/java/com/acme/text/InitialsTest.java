package com.acme.text;

import java.util.function.Supplier;

/** A small harness: each check runs on its own, and the run ends with a count. */
public class InitialsTest {
    private static int passed;
    private static int failed;

    public static void main(String[] args) {
        check("two words", "AL", () -> Initials.of("ada lovelace"));
        check("at most three", "GBM", () -> Initials.of("Grace Brewster Murray Hopper"));
        check("double space", "AT", () -> Initials.of("Alan  Turing"));
        System.out.println(passed + " passed, " + failed + " failed");
        if (failed > 0) {
            System.exit(1);
        }
    }

    private static void check(String what, String want, Supplier<String> got) {
        try {
            String g = got.get();
            if (want.equals(g)) {
                passed++;
                return;
            }
            System.err.println("FAIL " + what + ": got " + g + ", want " + want);
        } catch (RuntimeException e) {
            System.err.println("FAIL " + what + ":");
            e.printStackTrace();
        }
        failed++;
    }
}
