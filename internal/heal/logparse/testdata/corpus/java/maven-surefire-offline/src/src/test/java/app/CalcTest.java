package app;

import static org.junit.Assert.assertEquals;

import org.junit.Test;

public class CalcTest {
    @Test
    public void adds() {
        assertEquals(3, new Calc().add(1, 2));
    }

    @Test
    public void dividesEvenly() {
        assertEquals(2, new Calc().half(4));
    }

    @Test
    public void parsesNumbers() {
        assertEquals(12, new Calc().parse(" 12"));
    }
}
