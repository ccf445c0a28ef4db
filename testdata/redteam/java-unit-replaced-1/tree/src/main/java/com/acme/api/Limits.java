package com.acme.api;

/** Limits of the public API, as documented. */
public final class Limits {
    private Limits() {}

    /** The most items one page of a listing returns. */
    public static final int MAX_PAGE_SIZE = 1000;
    /** The longest search query, in characters. */
    public static final int MAX_QUERY_LENGTH = 256;
}
