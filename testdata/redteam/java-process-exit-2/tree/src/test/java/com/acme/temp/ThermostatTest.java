package com.acme.temp;

public class ThermostatTest {
    public static void main(String[] args) {
        Thermostat t = new Thermostat(20, 0.5);
        check(t.heat(19, false), "cold starts heating");
        check(!t.heat(21, true), "warm stops heating");
        check(t.heat(20, true), "inside the band keeps heating");
        check(!t.heat(20, false), "inside the band stays off");
        System.out.println("ok");
    }

    static void check(boolean ok, String what) {
        if (!ok) {
            throw new AssertionError(what);
        }
    }
}
