// Command greet prints a greeting.
package main

import (
	"fmt"
	"os"
)

// Greeting returns the greeting for name, shouted.
func Greeting(name string) string {
	return "HELLO, " + strings.ToUpper(name) + "!"
}

func main() {
	fmt.Println(Greeting("world"))
}
