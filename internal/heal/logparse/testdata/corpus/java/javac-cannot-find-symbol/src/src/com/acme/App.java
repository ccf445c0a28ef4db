package com.acme;

public class App {
    public static void main(String[] args) {
        int total = 0;
        System.out.println(totl);
    }
}
