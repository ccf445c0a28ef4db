package housetest

import (
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// tableName is a package named in the first column of a row of
// docs/ARCHITECTURE.md's package table: `pkg`, or several as `a`, `b`.
var tableName = regexp.MustCompile("`([a-z0-9_/.-]+)`")

// architecturePackages returns the packages the package table of
// docs/ARCHITECTURE.md names, relative to the module.
func architecturePackages(t *testing.T) map[string]bool {
	t.Helper()
	b, err := os.ReadFile("../../docs/ARCHITECTURE.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), "\n## Packages\n")
	if !ok {
		t.Fatal("docs/ARCHITECTURE.md has no Packages section")
	}
	if i := strings.Index(rest, "\n## "); i >= 0 {
		rest = rest[:i]
	}
	named := map[string]bool{}
	for _, line := range strings.Split(rest, "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		first := strings.SplitN(line, "|", 3)[1]
		for _, m := range tableName.FindAllStringSubmatch(first, -1) {
			named[m[1]] = true
		}
	}
	return named
}

// TestArchitectureNamesEveryPackage keeps docs/ARCHITECTURE.md's package
// table true: every package of the module that a binary links is a row,
// and every row names a package that exists.
func TestArchitectureNamesEveryPackage(t *testing.T) {
	named := architecturePackages(t)
	exists := map[string]bool{}
	linked := map[string]bool{}
	for _, p := range listPackages(t) {
		rel := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, module), "/")
		exists[rel] = true
		if !strings.HasPrefix(rel, "cmd/") {
			continue
		}
		for _, d := range p.Deps {
			if r, ok := strings.CutPrefix(d, module+"/"); ok && !strings.HasPrefix(r, "cmd/") {
				linked[r] = true
			}
		}
	}
	var missing, stale []string
	for p := range linked {
		if !named[p] {
			missing = append(missing, p)
		}
	}
	for p := range named {
		if !exists[p] {
			stale = append(stale, p)
		}
	}
	sort.Strings(missing)
	sort.Strings(stale)
	if len(missing) > 0 {
		t.Errorf("packages the binaries link but docs/ARCHITECTURE.md's table does not name: %s", strings.Join(missing, ", "))
	}
	if len(stale) > 0 {
		t.Errorf("docs/ARCHITECTURE.md's table names packages that do not exist: %s", strings.Join(stale, ", "))
	}
}
