package housetest

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// benchPkg is a package path a go test or go build command of the
// benchmark pages names.
var benchPkg = regexp.MustCompile(`(?:^|\s)\./([A-Za-z0-9_][\w./-]*?)/?(?:\.\.\.)?(?:[\s` + "`" + `)'"]|$)`)

// TestBenchmarkCommandsNamePackages: every package a go command names in
// the benchmark pages, the user docs or the README exists, so figures can
// be reproduced and commands run as written (the pages named paths of
// packages that moved). A command continued on the next line with a
// backslash is read whole.
func TestBenchmarkCommandsNamePackages(t *testing.T) {
	root := filepath.Join("..", "..")
	pages, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	guide, _ := filepath.Glob(filepath.Join(root, "docs", "*", "*.md"))
	pages = append(pages, guide...)
	pages = append(pages, filepath.Join(root, "BENCHMARKS.md"), filepath.Join(root, "README.md"))
	checked := 0
	for _, page := range pages {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for n, line := range goCommandLines(string(b)) {
			for _, m := range benchPkg.FindAllStringSubmatch(line, -1) {
				dir := filepath.Join(root, filepath.FromSlash(m[1]))
				if st, err := os.Stat(dir); err != nil || !st.IsDir() {
					t.Errorf("%s:%d names ./%s, which is not a package folder", filepath.Base(page), n, m[1])
				}
				checked++
			}
		}
	}
	if checked == 0 {
		t.Fatal("no package path found in the docs: the test checks nothing")
	}
}

// goCommandLines returns, by line number, the lines of a page that hold a
// go test, go build, go run or go doc command, and the lines that continue
// such a command after a trailing backslash.
func goCommandLines(page string) map[int]string {
	out := map[int]string{}
	continued := false
	for i, line := range strings.Split(page, "\n") {
		if continued || goCommand.MatchString(line) {
			out[i+1] = line
		}
		continued = (continued || goCommand.MatchString(line)) && strings.HasSuffix(strings.TrimSpace(line), "\\")
	}
	return out
}

// goCommand matches a go command that takes package paths.
var goCommand = regexp.MustCompile(`\bgo (test|build|run|doc|vet|list)\b`)

// benchScript is a script a benchmark page names: a path under scripts/,
// run as a file (scripts/corpus/bench.sh) or as a Go program
// (go run ./scripts/service/bench).
var benchScript = regexp.MustCompile(`(?:^|[\s` + "`" + `(=]|\./)(scripts/[\w./-]*[\w-])`)

// notBenchmarks are the scripts the benchmark pages name that measure
// nothing, which make bench need not run.
var notBenchmarks = map[string]string{
	"scripts/benchmarks.sh": "writes BENCHMARKS.md from the pages",
	"scripts/mcp/setup.sh":  "installs the reference MCP servers, as make setup does",
}

// TestBenchmarkScriptsRun: every script a benchmark page names exists, a
// file is executable and a folder is a Go program, and make bench runs it
// (its recipe names it, or a script the recipe runs calls it), so a
// script that moves or breaks fails make bench instead of rotting.
func TestBenchmarkScriptsRun(t *testing.T) {
	root := filepath.Join("..", "..")
	mk, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	recipe := makeRecipe(string(mk), "bench")
	if recipe == "" {
		t.Fatal("the Makefile has no bench target")
	}
	// What make bench reaches: its recipe, and each script the recipe
	// runs, with the folder it sits in (a script calls its neighbours by
	// their base name).
	reached := map[string]string{"": recipe}
	for _, m := range benchScript.FindAllStringSubmatch(recipe, -1) {
		if b, err := os.ReadFile(filepath.Join(root, m[1])); err == nil {
			reached[m[1]] = string(b)
		}
	}
	runs := func(p string) bool {
		for script, text := range reached {
			if strings.Contains(text, p) || script != "" && filepath.Dir(script) == filepath.Dir(p) && strings.Contains(text, filepath.Base(p)) {
				return true
			}
		}
		return false
	}
	pages, _ := filepath.Glob(filepath.Join(root, "docs", "bench-*.md"))
	pages = append(pages, filepath.Join(root, "BENCHMARKS.md"))
	seen := map[string]bool{}
	for _, page := range pages {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for n, line := range strings.Split(string(b), "\n") {
			for _, m := range benchScript.FindAllStringSubmatch(line, -1) {
				p := m[1]
				if seen[p] {
					continue
				}
				seen[p] = true
				where := fmt.Sprintf("%s:%d names %s", filepath.Base(page), n+1, p)
				st, err := os.Stat(filepath.Join(root, p))
				switch {
				case err != nil:
					t.Errorf("%s, which does not exist", where)
					continue
				case st.IsDir():
					if _, err := os.Stat(filepath.Join(root, p, "main.go")); err != nil {
						t.Errorf("%s, a folder that is not a Go program", where)
					}
				case st.Mode()&0o111 == 0:
					t.Errorf("%s, which is not executable", where)
				}
				if _, ok := notBenchmarks[p]; !ok && !runs(p) {
					t.Errorf("%s, which make bench does not run", where)
				}
			}
		}
	}
	if len(seen) == 0 {
		t.Fatal("no script found in the benchmark pages: the test checks nothing")
	}
}

// makeRecipe returns the recipe lines of target in a Makefile's text.
func makeRecipe(makefile, target string) string {
	var b strings.Builder
	in := false
	for _, line := range strings.Split(makefile, "\n") {
		switch {
		case strings.HasPrefix(line, target+":"):
			in = true
		case in && strings.HasPrefix(line, "\t"):
			b.WriteString(line + "\n")
		case in:
			return b.String()
		}
	}
	return b.String()
}
