package logparse

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A reader between its blocks may leave a line alone on its first byte
// (see parser.quiet). These tests parse the same logs with the gates and
// without them: the reports must be the same bytes.

// parseGated parses log with the readers' gates on or off.
func parseGated(t testing.TB, log string, opts Options, gated bool) string {
	t.Helper()
	p := newParser(opts)
	p.ungated = !gated
	out, err := p.run(strings.NewReader(log))
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func checkGates(t testing.TB, name, log string) {
	t.Helper()
	for _, opts := range []Options{{}, {Root: "/workspace/app"}} {
		if got, want := parseGated(t, log, opts, true), parseGated(t, log, opts, false); got != want {
			t.Fatalf("%s (root %q): with the gates\n%s\nwithout\n%s", name, opts.Root, got, want)
		}
	}
}

// corpusLines returns the lines of every corpus log, log by log.
func corpusLines(t testing.TB) [][]string {
	var logs [][]string
	for _, dir := range corpusCases(t) {
		data, err := os.ReadFile(filepath.Join(dir, "log.txt"))
		if err != nil {
			t.Fatal(err)
		}
		logs = append(logs, strings.Split(string(data), "\n"))
	}
	return logs
}

func TestGatesAgree(t *testing.T) {
	logs := corpusLines(t)
	for i, lines := range logs {
		checkGates(t, corpusCases(t)[i], strings.Join(lines, "\n"))
	}
	// Runs of lines from different logs, cut at random, some indented or
	// behind a CI prefix: readers meet each other's lines mid-block.
	rng := rand.New(rand.NewPCG(37, 1))
	prefixes := []string{"", "", "", "  ", "\t", "2024-01-15T10:20:30.1234567Z ", "#12 0.532 ", "\x1b[31m", "$ "}
	for n := 0; n < 300; n++ {
		var b strings.Builder
		for k := rng.IntN(30) + 2; k > 0; k-- {
			lines := logs[rng.IntN(len(logs))]
			from := rng.IntN(len(lines))
			to := min(len(lines), from+1+rng.IntN(60))
			pre := prefixes[rng.IntN(len(prefixes))]
			for _, l := range lines[from:to] {
				b.WriteString(pre + l + "\n")
			}
		}
		checkGates(t, "mix", b.String())
	}
}

func FuzzGates(f *testing.F) {
	for _, lines := range corpusLines(f) {
		if len(lines) > 40 {
			lines = lines[:40]
		}
		f.Add(strings.Join(lines, "\n"))
	}
	f.Fuzz(func(t *testing.T, log string) { checkGates(t, "fuzz", log) })
}
