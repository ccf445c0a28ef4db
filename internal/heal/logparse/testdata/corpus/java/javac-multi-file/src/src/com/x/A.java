package com.x;

import java.util.List;

public class A {
    public int size(List<String> xs) {
        return xs.size() + B.count();
    }
    public static void main(String[] args) {
        new A().run(null);
    }
    void run(String s) {
        System.out.println(s.length());
    }
}
