package main

import "fmt"

func add(a, b int) int { return a + b }

func main() {
	total := add(1) + offset
	fmt.Println(total)
}
