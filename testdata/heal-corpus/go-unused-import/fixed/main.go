// Command wordcount counts the words of its input, like wc -w.
package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
)

// count returns the number of words read from r.
func count(r io.Reader) (int, error) {
	sc := bufio.NewScanner(r)
	sc.Split(bufio.ScanWords)
	n := 0
	for sc.Scan() {
		n++
	}
	return n, sc.Err()
}

func main() {
	n, err := count(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, "wordcount:", err)
		os.Exit(1)
	}
	fmt.Println(n)
}
