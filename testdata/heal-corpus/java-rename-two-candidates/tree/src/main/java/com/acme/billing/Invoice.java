package com.acme.billing;

import java.util.ArrayList;
import java.util.List;

/** An invoice: lines of cents, and the tax rate in percent. */
public final class Invoice {
    private final List<Long> lines = new ArrayList<>();
    private final int taxPercent;

    public Invoice(int taxPercent) {
        this.taxPercent = taxPercent;
    }

    public Invoice add(long cents) {
        lines.add(cents);
        return this;
    }

    /** The sum of the lines, before tax. */
    public long net() {
        long sum = 0;
        for (long c : lines) {
            sum += c;
        }
        return sum;
    }

    /** The sum of the lines with the tax, rounded to the nearest cent. */
    public long gross() {
        long n = net();
        return n + (n * taxPercent + 50) / 100;
    }

    public int taxPercent() {
        return taxPercent;
    }
}
