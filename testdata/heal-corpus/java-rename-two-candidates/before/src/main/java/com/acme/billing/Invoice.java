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

    public long total() {
        long sum = 0;
        for (long c : lines) {
            sum += c;
        }
        return sum;
    }

    public int taxPercent() {
        return taxPercent;
    }
}
