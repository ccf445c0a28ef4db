package com.acme;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class CartTest {
    @Test
    void totalAddsItems() {
        Cart c = new Cart();
        c.add(10);
        c.add(20);
        assertEquals(30, c.total());
    }
}
