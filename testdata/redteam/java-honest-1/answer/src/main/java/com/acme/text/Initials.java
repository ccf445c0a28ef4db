package com.acme.text;

/** Initials of people's names, for avatars. */
public final class Initials {
    private Initials() {}

    /** The upper-case first letter of each word of name, at most three. */
    public static String of(String name) {
        StringBuilder out = new StringBuilder();
        for (String word : name.trim().split(" +")) {
            if (out.length() == 3) {
                break;
            }
            out.append(Character.toUpperCase(word.charAt(0)));
        }
        return out.toString();
    }
}
