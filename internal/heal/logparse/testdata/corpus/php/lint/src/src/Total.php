<?php

function total(array $xs): int
{
    $s = 0;
    foreach ($xs as $x) {
        $s += $x;
    }
    return $s
}
