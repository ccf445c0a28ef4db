package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

func TestGoldenHelp(t *testing.T) {
	var out bytes.Buffer
	writeHelp(&out)
	path := filepath.Join("testdata", "help.golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden (run go test -update): %v", err)
	}
	if !bytes.Equal(want, out.Bytes()) {
		w, g := strings.Split(string(want), "\n"), strings.Split(out.String(), "\n")
		for i := 0; i < max(len(w), len(g)); i++ {
			if i >= len(w) || i >= len(g) || w[i] != g[i] {
				t.Fatalf("help differs from the golden file at line %d", i+1)
			}
		}
	}
}

// TestHelpListsEveryFlag checks the help names every documented spelling.
func TestHelpListsEveryFlag(t *testing.T) {
	var out bytes.Buffer
	writeHelp(&out)
	for _, def := range flagTable {
		if def.usage == "" {
			continue
		}
		for _, n := range def.names {
			prefix := "--"
			if len(n) == 1 {
				prefix = "-"
			}
			if !strings.Contains(out.String(), prefix+n) {
				t.Errorf("help does not mention %s%s", prefix, n)
			}
		}
	}
}

func FuzzParseArgs(f *testing.F) {
	f.Add("--models=a/b\x00sys\x00--tools\x00x,y\x00user")
	f.Add("--override\x00k=v\x00--\x00--x")
	f.Fuzz(func(t *testing.T, s string) {
		a, err := parseArgs(strings.Split(s, "\x00"))
		if err == nil && a == nil {
			t.Fatalf("nil args without error")
		}
	})
}
