package app;

public class Calc {
    public int add(int a, int b) {
        return a - b;
    }

    public int half(int a) {
        return a / 2;
    }

    public int parse(String s) {
        return Integer.parseInt(s);
    }
}
