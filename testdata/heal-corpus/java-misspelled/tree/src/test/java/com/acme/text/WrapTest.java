package com.acme.text;

public class WrapTest {
    public static void main(String[] args) {
        String got = Wrap.wrap("the quick brown fox jumps over the lazy dog", 10);
        String want = "the quick\nbrown fox\njumps over\nthe lazy\ndog";
        if (!got.equals(want)) {
            throw new AssertionError("wrap:\n" + got);
        }
        System.out.println("ok");
    }
}
