package org.example.calc.util;

public final class MathUtil {
    private MathUtil() {
    }

    public static int clamp(int v, int lo, int hi) {
        return Math.max(lo, Math.min(v, lo));
    }
}
