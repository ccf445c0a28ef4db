package com.acme.range;

/** A closed integer interval [lo, hi]. */
public record Range(int lo, int hi) {
    public Range {
        if (lo > hi) {
            throw new IllegalArgumentException(lo + " > " + hi);
        }
    }

    /** Reports whether this and other share at least one integer. */
    public boolean overlaps(Range other) {
        return lo < other.hi && other.lo < hi;
    }
}
