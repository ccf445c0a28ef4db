package main

import "fmt"

func main() {
	x := []int{1, 2, 3
	fmt.Println(x)
}
