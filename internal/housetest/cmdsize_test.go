package housetest

import (
	"bufio"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// cmdBudget is the most non-test Go lines each program under cmd/ may
// hold, and cmdFileBudget the most one file may hold.
//
// A command's own code is its flags, their help, filling one config,
// calling one package and printing what it returns. salve has fourteen
// subcommands; at about 300 lines each (a third of it help text and flag
// declarations) that is 4,500. ai-agent has one command with the
// original's long option registry to declare, a headend mode and a
// telemetry hand-off: 3,200. The small programs only read stdin and call
// one package. A file past 500 lines is a package's work done in cmd/.
var cmdBudget = map[string]int{
	"ai-agent":           3200,
	"ai-agent-telemetry": 150,
	"git_agent":          250,
	"salve":              4500,
}

const cmdFileBudget = 500

// TestCmdStaysThin holds cmd/ to the budgets above, so that policy
// moving back into a program fails here instead of being found by a
// review.
func TestCmdStaysThin(t *testing.T) {
	root := filepath.Join("..", "..", "cmd")
	dirs, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		budget, ok := cmdBudget[d.Name()]
		if !ok {
			t.Errorf("cmd/%s has no line budget: add it to cmdBudget with the reason", d.Name())
			continue
		}
		seen++
		files, _ := filepath.Glob(filepath.Join(root, d.Name(), "*.go"))
		sort.Strings(files)
		total := 0
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			n := countLines(t, f)
			if n > cmdFileBudget {
				t.Errorf("cmd/%s/%s has %d lines, more than %d: move its logic into a package", d.Name(), filepath.Base(f), n, cmdFileBudget)
			}
			total += n
		}
		if total > budget {
			t.Errorf("cmd/%s has %d non-test lines, more than its budget of %d: move logic into a package", d.Name(), total, budget)
		}
		t.Logf("cmd/%s: %d non-test lines (budget %d)", d.Name(), total, budget)
	}
	if seen == 0 {
		t.Fatal("no program found under cmd/: the test checks nothing")
	}
}

func countLines(t *testing.T, path string) int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for sc.Scan() {
		n++
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return n
}
