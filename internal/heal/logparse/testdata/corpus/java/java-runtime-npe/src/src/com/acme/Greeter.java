package com.acme;

public class Greeter {
    static String shout(String s) {
        return s.toUpperCase() + "!";
    }

    public static void main(String[] args) {
        String name = args.length > 0 ? args[0] : null;
        System.out.println(shout(name));
    }
}
