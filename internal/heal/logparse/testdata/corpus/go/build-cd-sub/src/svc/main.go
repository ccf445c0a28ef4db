package main

import "fmt"

func main() {
	var count int = "three"
	fmt.Println(count)
}
