package app;

public class Loader {
    static int parse(String s) {
        try {
            return Integer.parseInt(s);
        } catch (NumberFormatException e) {
            throw new IllegalStateException("bad config value: " + s, e);
        }
    }

    public static void main(String[] args) {
        System.out.println(parse("ten"));
    }
}
