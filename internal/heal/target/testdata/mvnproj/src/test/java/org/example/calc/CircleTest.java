package org.example.calc;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class CircleTest {
    @Test
    void unitArea() {
        Circle c = new Circle(0, 0, 1);
        assertEquals(Math.PI, c.area(), 1e-9);
    }
}
