package integrity

import (
	"path"
	"strings"
	"testing"
	"time"
)

// TestMatchLinear: globs made of many "**" parts, which a repository's
// protected_paths and skip_branches may hold, are answered at once
// against long names, matching or not.
func TestMatchLinear(t *testing.T) {
	long := strings.Repeat("a/", 40) + "b" // 81 bytes
	cases := []struct {
		name, glob, path string
		match            bool
	}{
		{"37 bytes of **/ and no match", strings.Repeat("**/", 12) + "x", long, false},
		{"37 bytes of **/ and a match", strings.Repeat("**/", 12) + "b", long, true},
		{"alternating parts", strings.Repeat("**/a/", 7) + "c", long, false},
		{"stars within parts", strings.Repeat("**/*a*/", 5) + "z", long, false},
		{"longest glob", strings.Repeat("**/", MaxGlobLen/3-1) + "x", strings.Repeat("a/", 2000) + "b", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if len(tc.glob) > MaxGlobLen {
				t.Fatalf("glob of %d bytes is past MaxGlobLen", len(tc.glob))
			}
			done := make(chan [2]bool, 1)
			go func() { done <- [2]bool{MatchPath(tc.glob, tc.path), MatchAnchored(tc.glob, tc.path)} }()
			select {
			case got := <-done:
				if got[0] != tc.match || got[1] != tc.match {
					t.Fatalf("MatchPath, MatchAnchored = %v, want %v", got, tc.match)
				}
			case <-time.After(5 * time.Second):
				t.Fatalf("%d-byte glob against a %d-byte name did not finish in 5s", len(tc.glob), len(tc.path))
			}
		})
	}
}

// TestGlobLengthCap: a glob past MaxGlobLen is refused, and matches
// nothing.
func TestGlobLengthCap(t *testing.T) {
	g := strings.Repeat("a", MaxGlobLen+1)
	if CheckGlob(g) == nil || MatchPath(g, g) || MatchAnchored(g, g) {
		t.Fatalf("a %d-byte glob was accepted", len(g))
	}
	if g = strings.Repeat("a", MaxGlobLen); CheckGlob(g) != nil || !MatchPath(g, g) {
		t.Fatalf("a %d-byte glob was refused", len(g))
	}
}

// slowMatch is the plain recursive reading of the glob rules, exponential
// in the number of "**" parts; the fuzz target holds the fast matcher to
// it on small inputs.
func slowMatch(g, p []string) bool {
	if len(g) == 0 {
		return len(p) == 0
	}
	if g[0] == "**" {
		for i := 0; i <= len(p); i++ {
			if slowMatch(g[1:], p[i:]) {
				return true
			}
		}
		return false
	}
	if len(p) == 0 {
		return false
	}
	ok, _ := path.Match(g[0], p[0])
	return ok && slowMatch(g[1:], p[1:])
}

// FuzzMatchPath: the matcher agrees with slowMatch, and no glob, however
// shaped, takes long against a long name.
func FuzzMatchPath(f *testing.F) {
	for _, s := range [][2]string{
		{"docs/**", "docs/a/b.md"},
		{"**/*.lock", "go.lock"},
		{"*.pem", "a/b/key.pem"},
		{"release/*", "release/1.2"},
		{"a/**/b/**/c", "a/x/b/c"},
		{"**/**/**", ""},
		{"[a-", "a"},
		{strings.Repeat("**/", 12) + "x", strings.Repeat("a/", 40) + "b"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, glob, p string) {
		start := time.Now()
		got, anchored := MatchPath(glob, p), MatchAnchored(glob, p)
		if d := time.Since(start); d > time.Second && len(p) <= 1<<12 {
			t.Fatalf("%d-byte glob against a %d-byte name took %v", len(glob), len(p), d)
		}
		if CheckGlob(glob) != nil {
			if got || anchored {
				t.Fatalf("malformed glob %q matched %q", glob, p)
			}
			return
		}
		g, ps := strings.Split(glob, "/"), strings.Split(p, "/")
		if len(g) > 8 || len(ps) > 12 {
			return
		}
		if want := slowMatch(g, ps); anchored != want {
			t.Fatalf("MatchAnchored(%q, %q) = %v, the rules say %v", glob, p, anchored, want)
		}
		if !strings.Contains(glob, "/") {
			g = append([]string{"**"}, g...)
		}
		if want := slowMatch(g, ps); got != want {
			t.Fatalf("MatchPath(%q, %q) = %v, the rules say %v", glob, p, got, want)
		}
	})
}
