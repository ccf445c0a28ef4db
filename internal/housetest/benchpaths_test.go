package housetest

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// benchPkg is a package path a go test or go build command of the
// benchmark pages names.
var benchPkg = regexp.MustCompile(`(?:^|\s)\./([A-Za-z0-9_][\w./-]*?)/?(?:\.\.\.)?(?:[\s` + "`" + `)'"]|$)`)

// TestBenchmarkCommandsNamePackages: every package a benchmark page's go
// test or go build command names exists, so its figures can be
// reproduced as written (the pages named paths of packages that moved).
func TestBenchmarkCommandsNamePackages(t *testing.T) {
	root := filepath.Join("..", "..")
	pages, _ := filepath.Glob(filepath.Join(root, "docs", "bench-*.md"))
	pages = append(pages, filepath.Join(root, "BENCHMARKS.md"))
	checked := 0
	for _, page := range pages {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for n, line := range strings.Split(string(b), "\n") {
			if !strings.Contains(line, "go test") && !strings.Contains(line, "go build") {
				continue
			}
			for _, m := range benchPkg.FindAllStringSubmatch(line, -1) {
				dir := filepath.Join(root, filepath.FromSlash(m[1]))
				if st, err := os.Stat(dir); err != nil || !st.IsDir() {
					t.Errorf("%s:%d names ./%s, which is not a package folder", filepath.Base(page), n+1, m[1])
				}
				checked++
			}
		}
	}
	if checked == 0 {
		t.Fatal("no package path found in the benchmark pages: the test checks nothing")
	}
}
