package org.example.calc;

import static org.example.calc.util.MathUtil.clamp;
import static org.junit.jupiter.api.Assertions.assertEquals;

import org.example.calc.util.MathUtil;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class CalculatorTest {
    private Calculator calc;

    @BeforeEach
    void setUp() {
        calc = new Calculator(10);
    }

    @Test
    void addsTwoNumbers() {
        assertEquals(5, calc.add(2, 3));
    }

    @Test
    void dividesOnAFreshInstance() {
        assertEquals(2, new Calculator(0).divide(6, 3));
    }

    @Test
    @DisplayName("clamps to the range (inclusive)")
    void clampsToRange() {
        assertEquals(10, clamp(12, 0, 10));
        assertEquals(0, MathUtil.clamp(-1, 0, 10));
    }

    @Test
    void chainsFromTheFactory() {
        var c = Calculator.create();
        assertEquals(3, c.add(1, 2));
    }
}
