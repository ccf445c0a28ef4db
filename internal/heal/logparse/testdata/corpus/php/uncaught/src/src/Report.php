<?php

class Report
{
    private array $rows;

    public function __construct(array $rows)
    {
        $this->rows = $rows;
    }

    public function total(): int
    {
        $sum = 0;
        foreach ($this->rows as $row) {
            $sum += $this->amount($row);
        }
        return $sum;
    }

    private function amount(array $row): int
    {
        return $row['qty'] * $row['price'];
    }
}
