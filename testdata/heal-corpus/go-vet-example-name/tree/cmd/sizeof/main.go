// Command sizeof prints each argument as a byte count.
package main

import (
	"fmt"
	"os"

	"example.com/bytesize"
)

func main() {
	for _, a := range os.Args[1:] {
		s, err := bytesize.Parse(a)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		fmt.Println(int64(s))
	}
}
