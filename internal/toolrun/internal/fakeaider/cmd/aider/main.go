// Command aider is the fake aider as a program of its own, for tests that
// cannot re-run their own binary (go build it into a folder put first in
// PATH). See package fakeaider for what it does.
package main

import (
	"os"

	"github.com/salve-dev/salve/internal/toolrun/internal/fakeaider"
)

func main() { os.Exit(fakeaider.Main(os.Args[1:], os.Stdout, os.Stderr)) }
