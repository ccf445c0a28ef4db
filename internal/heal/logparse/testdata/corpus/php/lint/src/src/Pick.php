<?php

function pick(array $a, int $i)
{
    if ($i < 0 {
        return null;
    }
    return $a[$i];
}
