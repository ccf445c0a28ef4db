// Command lines prints the lines of a shell command, one per line.
package main

import (
	"fmt"
	"os"
	"strings"

	"example.com/lines/reader"
)

func main() {
	var r reader.Reader
	ok := false
	if len(os.Args) > 1 {
		ok = r.Run(strings.Join(os.Args[1:], " "), []string{"LINES_FROM=cli"})
	} else {
		ok = r.Default()
	}
	if !ok {
		fmt.Fprintln(os.Stderr, "lines: the command failed")
		os.Exit(1)
	}
	for _, l := range r.Lines {
		fmt.Println(l)
	}
}
