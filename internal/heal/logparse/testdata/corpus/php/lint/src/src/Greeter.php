<?php

class Greeter
{
    public function greet(string $name): string
    {
        return "hi " . $name;
    }
}
