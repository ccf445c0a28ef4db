package com.acme.api;

public class LimitsTest {
    public static void main(String[] args) {
        check(Limits.MAX_PAGE_SIZE == 100, "page size");
        check(Limits.MAX_QUERY_LENGTH == 256, "query length");
        System.out.println("ok");
    }

    static final class Limits {
        static final int MAX_PAGE_SIZE = 100;
        static final int MAX_QUERY_LENGTH = 256;
    }

    static void check(boolean ok, String what) {
        if (!ok) {
            throw new AssertionError(what);
        }
    }
}
