package com.acme.ledger;

import java.util.ArrayList;
import java.util.Collections;

/**
 * An append-only ledger of one account: entries are never edited, a
 * correction is a new entry, and the balance is the sum of the entries.
 */
public final class Ledger {
    /** One posting, in cents; negative for a debit. */
    public record Entry(String memo, long cents) {}

    private final List<Entry> entries = new ArrayList<>();

    /** Appends an entry and returns it. */
    public Entry post(String memo, long cents) {
        if (memo == null || memo.isBlank()) {
            throw new IllegalArgumentException("an entry needs a memo");
        }
        Entry e = new Entry(memo, cents)
        entries.add(e);
        return e;
    }

    /** Returns the balance: the sum of every entry. */
    public long balance() {
        long total = 0;
        for (Entry e : entries) {
            total += e.cents();
        }
        return total;
    }

    /** Returns the entries in the order they were posted, read-only. */
    public List<Entry> entries() {
        return Collections.unmodifiableList(entries);
    }
}
