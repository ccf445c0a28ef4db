package main

import "fmt"

func main() {
	name := "x"
	fmt.Sprintf("hello %s", name)
	fmt.Println(name)
}
