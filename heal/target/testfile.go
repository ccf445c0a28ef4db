package target

import (
	"path"
	"strings"
)

// testFileRule is one way a file shows it is a test: by the end of its
// name, the start of its name, its whole name, a part of its name, or a
// folder on its path.
type testFileRule struct {
	suffix, prefix, ext, base, infix, dir string
}

// testFileRules are the naming conventions of the test runners salve
// parses (go test, pytest and unittest, jest/vitest/mocha, JUnit, RSpec,
// cargo's integration tests).
var testFileRules = []testFileRule{
	{suffix: "_test.go"},
	{prefix: "test_", ext: ".py"},
	{suffix: "_test.py"},
	{base: "conftest.py"},
	{infix: ".test."},
	{infix: ".spec."},
	{suffix: "_spec.rb"},
	{suffix: "_test.rb"},
	{dir: "tests"},
	{dir: "test"},
	{dir: "__tests__"},
	{dir: "spec"},
	{dir: "testdata"},
}

// isTestFile reports whether rel, a repo-relative slash path, is a test
// file (or test data), which the resolver never returns as code to patch.
// It is the one place to point at a shared predicate.
func isTestFile(rel string) bool {
	base := path.Base(rel)
	dirs := "/" + path.Dir(rel) + "/"
	for _, r := range testFileRules {
		switch {
		case r.suffix != "" && strings.HasSuffix(base, r.suffix),
			r.prefix != "" && strings.HasPrefix(base, r.prefix) && strings.HasSuffix(base, r.ext),
			r.base != "" && base == r.base,
			r.infix != "" && strings.Contains(base, r.infix),
			r.dir != "" && strings.Contains(dirs, "/"+r.dir+"/"):
			return true
		}
	}
	return false
}
