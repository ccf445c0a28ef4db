package housetest

import (
	"go/scanner"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// gitDirNames are folder names of a git directory that only a list of
// what git can run (or of what it never needs to read) names together
// with "hooks": a file outside internal/gitguard holding "hooks" and one
// of them is a second copy of that rule.
var gitDirNames = []string{"info", "annex", "lfs", "rebase-merge", "rebase-apply", "sequencer"}

// TestGitDirRuleHasOneHome keeps internal/gitguard the one home of the
// rule of which parts of a git directory can run a program, and of which
// are never read: the tool adapter once held a copy of its own that had
// drifted (it read git-annex's content folder). No non-test Go file
// elsewhere may hold the string literal "hooks" together with "info",
// "annex", "lfs", "rebase-merge", "rebase-apply" or "sequencer", nor
// "lfs" together with "annex"; such a file should ask internal/gitguard
// (Guarded, DataDir, WalkGitDir) instead.
func TestGitDirRuleHasOneHome(t *testing.T) {
	found := findOutside(t, "internal/gitguard", func(p string) ([]string, error) {
		lits, err := stringLiterals(p)
		if err != nil {
			return nil, err
		}
		var with []string
		if lits["hooks"] {
			for _, n := range gitDirNames {
				if lits[n] {
					with = append(with, `"hooks" with "`+n+`"`)
				}
			}
		}
		if lits["lfs"] && lits["annex"] {
			with = append(with, `"lfs" with "annex"`)
		}
		if len(with) == 0 {
			return nil, nil
		}
		return []string{strings.Join(with, ", ")}, nil
	})
	for _, f := range found {
		t.Errorf("%s: names git directory folders: a second copy of internal/gitguard's rule? Use gitguard.Guarded, DataDir or WalkGitDir", f)
	}
}

// findOutside runs find over every non-test Go file of the module outside
// home, a policy's own package (a slash path from the module's root), and
// returns what it found, each as "file: finding", sorted.
func findOutside(t *testing.T, home string, find func(p string) ([]string, error)) []string {
	t.Helper()
	root := filepath.Join("..", "..")
	var found []string
	err := walkGoSources(root, filepath.Join(root, filepath.FromSlash(home)), func(p string) error {
		got, err := find(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		for _, g := range got {
			found = append(found, filepath.ToSlash(rel)+": "+g)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(found)
	return found
}

// walkGoSources calls fn with the path of every non-test Go file below
// root, outside home (a policy's own package), hidden folders, testdata,
// vendor and node_modules.
func walkGoSources(root, home string, fn func(p string) error) error {
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if p == home || (p != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "vendor" || name == "node_modules")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		return fn(p)
	})
}

// stringLiterals returns the values of the string literals of Go file p.
func stringLiterals(p string) (map[string]bool, error) {
	src, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	file := fset.AddFile(p, -1, len(src))
	var s scanner.Scanner
	s.Init(file, src, nil, 0)
	out := map[string]bool{}
	for {
		_, tok, lit := s.Scan()
		if tok == token.EOF {
			return out, nil
		}
		if tok != token.STRING {
			continue
		}
		if v, err := strconv.Unquote(lit); err == nil {
			out[v] = true
		}
	}
}
