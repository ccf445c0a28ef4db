package com.acme.csv;

import java.util.List;

public class CsvLineTest {
    public static void main(String[] args) {
        List<String> got = CsvLine.split("a,\"b,c\",d");
        if (!got.equals(List.of("a", "b,c", "d"))) {
            throw new AssertionError("split: got " + got);
        }
        System.out.println("ok");
    }
}
