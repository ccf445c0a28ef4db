<?php

use PHPUnit\Framework\TestCase;

require_once __DIR__ . '/../src/Cart.php';

final class CartTest extends TestCase
{
    public function testTotalCountsQuantity(): void
    {
        $cart = new Cart();
        $cart->add('pen', 2, 3);
        $this->assertSame(6, $cart->total());
    }

    public function testCheapest(): void
    {
        $cart = new Cart();
        $cart->add('pen', 2);
        $cart->add('ink', 5);
        $this->assertSame('pen', $cart->cheapest());
    }

    public function testEmptyTotal(): void
    {
        $this->assertSame(0, (new Cart())->total());
    }
}
