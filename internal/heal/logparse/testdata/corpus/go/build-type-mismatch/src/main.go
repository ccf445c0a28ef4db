package main

import "fmt"

func double(n int) int { return n * 2 }

func main() {
	var s string = double(4)
	fmt.Println(s)
}
