package integrity

import (
	"strings"
	"testing"
)

// TestProtectedPath: a fix of a path a protected glob matches is refused
// with rule protected-path; other paths pass; the glob syntax is
// path.Match's per part, with ** for any number of parts.
func TestProtectedPath(t *testing.T) {
	for _, tc := range []struct {
		glob, path string
		match      bool
	}{
		{"migrations/**", "migrations/001.sql", true},
		{"migrations/**", "db/migrations/001.sql", false},
		{"**/migrations/**", "db/migrations/001.sql", true},
		{"*.pem", "certs/server.pem", true},
		{"*.pem", "server.pem", true},
		{"src/*.go", "src/a/b.go", false},
		{"src/**/*.go", "src/a/b.go", true},
		{"src/**/*.go", "src/b.go", true},
		{"go.sum", "go.sum", true},
		{"go.sum", "vendor/x/go.sum", true},
		{"[", "x", false},
	} {
		if got := MatchPath(tc.glob, tc.path); got != tc.match {
			t.Errorf("MatchPath(%q, %q) = %v, want %v", tc.glob, tc.path, got, tc.match)
		}
	}
	in := Input{Path: "migrations/001.sql", Original: "a\n", Patched: "b\n", Protected: []string{"*.pem", "migrations/**"}}
	v := Check(in)
	if len(v) != 1 || v[0].Rule != RuleProtectedPath {
		t.Fatalf("violations %v, want %s", v, RuleProtectedPath)
	}
	in.Path = "src/main.sql"
	if v := Check(in); len(v) != 0 {
		t.Errorf("an unprotected path: %v", v)
	}
	for _, bad := range []string{"", "/etc", "a//b", "../x", "a/./b", `a\b`, "["} {
		if CheckGlob(bad) == nil {
			t.Errorf("CheckGlob(%q) accepted", bad)
		}
	}
}

// TestMatchPathLinear: a pattern of many "**" against a deep name, which
// a backtracking matcher takes exponential time on, is answered at once
// (the test would run into the suite's timeout otherwise).
func TestMatchPathLinear(t *testing.T) {
	glob := strings.Repeat("**/", 12) + "x" // 37 bytes
	name := strings.Repeat("a/", 40) + "b"  // 81 bytes
	if MatchPath(glob, name) || MatchAnchored(glob, name) {
		t.Fatal("matched")
	}
	if !MatchPath(glob, strings.Repeat("a/", 40)+"x") {
		t.Fatal("did not match")
	}
	long := strings.Repeat("a", MaxGlobLen+1)
	if CheckGlob(long) == nil || MatchPath(long, long) {
		t.Error("an over-long glob was accepted")
	}
}

func FuzzMatchPath(f *testing.F) {
	for _, s := range [][2]string{{"**/*.lock", "a/b/c.lock"}, {"docs/**", "docs/x/y"}, {"release/*", "release/1.2"}, {"**/**/**/x", "a/b/c/d/x"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, glob, name string) {
		a := MatchPath(glob, name)
		if a && CheckGlob(glob) != nil {
			t.Fatalf("a refused glob %q matched", glob)
		}
		_ = MatchAnchored(glob, name)
	})
}
