<?php

class Cart
{
    private array $items = [];

    public function add(string $name, int $price, int $qty = 1): void
    {
        $this->items[$name] = ['price' => $price, 'qty' => $qty];
    }

    public function total(): int
    {
        $sum = 0;
        foreach ($this->items as $item) {
            $sum += $item['price'];
        }
        return $sum;
    }

    public function cheapest(): string
    {
        $names = array_keys($this->items);
        return $names[0]->name;
    }
}
