package com.acme;

import java.util.ArrayList;
import java.util.List;

/** A shopping cart. */
public class Cart {
    private final List<Integer> prices = new ArrayList<>();

    public void add(int price) {
        prices.add(price);
    }

    // total sums the prices; "{" in a comment must not count.
    public int total() {
        int sum = 0;
        for (int i = 1; i < prices.size(); i++) {
            sum += prices.get(i);
        }
        return sum;
    }

    public int average() {
        return total() / prices.size();
    }
}
