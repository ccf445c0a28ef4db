package main

import "fmt"

func pick(xs []string, i int) string {
	return xs[i]
}

func main() {
	names := []string{"a", "b"}
	fmt.Println(pick(names, 5))
}
