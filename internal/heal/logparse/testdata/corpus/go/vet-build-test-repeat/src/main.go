package main

import "fmt"

// label uses strings and strconv, neither of them imported.
func label(n int) string {
	return strings.ToUpper(strconv.Itoa(n))
}

func main() {
	fmt.Println(label(42))
}
