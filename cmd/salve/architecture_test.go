package main

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestArchitectureListsSubcommands holds the salve row of
// docs/ARCHITECTURE.md's Binaries table to the subcommands salve has: a
// rename of packages once wrote package paths into it.
func TestArchitectureListsSubcommands(t *testing.T) {
	b, err := os.ReadFile("../../docs/ARCHITECTURE.md")
	if err != nil {
		t.Fatal(err)
	}
	var row string
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "| `salve` | `cmd/salve` |") {
			row = line
		}
	}
	if row == "" {
		t.Fatal("docs/ARCHITECTURE.md has no row for the salve binary")
	}
	_, list, ok := strings.Cut(row, "CLI:")
	if !ok {
		t.Fatalf("the salve row lists no subcommands: %s", row)
	}
	var documented []string
	for _, m := range regexp.MustCompile("`([^`]+)`").FindAllStringSubmatch(list, -1) {
		documented = append(documented, m[1])
	}
	var have []string
	for _, c := range newRootCmd(&streams{Getenv: func(string) string { return "" }}).Commands() {
		if c.Hidden || c.Name() == "help" || c.Name() == "completion" {
			continue
		}
		have = append(have, c.Name())
	}
	slices.Sort(documented)
	slices.Sort(have)
	if !slices.Equal(documented, have) {
		t.Errorf("docs/ARCHITECTURE.md lists salve subcommands %v; salve has %v", documented, have)
	}
}
