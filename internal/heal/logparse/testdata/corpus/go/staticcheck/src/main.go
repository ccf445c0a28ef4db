package main

import (
	"fmt"
	"strings"
)

func main() {
	s := "Hello"
	if strings.Index(s, "H") != -1 {
		fmt.Println("yes")
	}
	for i := 0; i < 3; i++ {
		defer fmt.Println(i)
		break
	}
}
