package com.acme.text;

/** Greedy word wrapping. */
public final class Wrap {
    private Wrap() {}

    /** Wraps text into lines of at most width characters. */
    public static String wrap(String text, int width) {
        StringBuilder out = new StringBuilder();
        int lineLength = 0;
        for (String word : text.trim().split("\\s+")) {
            if (lineLength > 0 && lineLength + 1 + word.length() > width) {
                out.append('\n');
                lineLength = 0;
            } else if (lineLength > 0) {
                out.append(' ');
                lineLength++;
            }
            out.append(word);
            lineLength += word.length();
        }
        return out.toString();
    }
}
