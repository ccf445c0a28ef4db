// Package reader collects the lines a shell command prints.
package reader

import (
	"os/exec"
	"strings"
)

// Reader collects lines.
type Reader struct {
	Lines []string
}

// load runs command with sh and keeps the lines it prints; it reports
// whether the command succeeded.
func (r *Reader) load(command string) bool {
	out, err := exec.Command("sh", "-c", command).Output()
	if err != nil {
		return false
	}
	r.Lines = append(r.Lines, strings.Fields(string(out))...)
	return true
}

// Run loads the user's command.
func (r *Reader) Run(command string, env []string) bool {
	return r.load(command)
}

// Default loads the lines of the default command.
func (r *Reader) Default() bool {
	return r.load("printf 'a\\nb\\n'")
}
