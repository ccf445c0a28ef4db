package server

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzRepoPath checks the path guard on arbitrary user paths in a tree with
// links pointing in and out: whatever it accepts is a clean path relative to
// the root, outside .git, whose directory (and, for a link, target) resolves
// inside the root.
func FuzzRepoPath(f *testing.F) {
	tmp := f.TempDir()
	root := filepath.Join(tmp, "repo")
	for _, d := range []string{"repo/.git", "repo/sub/deep", "outside"} {
		if err := os.MkdirAll(filepath.Join(tmp, d), 0o755); err != nil {
			f.Fatal(err)
		}
	}
	for link, target := range map[string]string{
		"repo/out": "../outside", "repo/in": "sub", "repo/sub/up": "../..", "repo/abs": filepath.Join(tmp, "outside"),
		"repo/loop": "loop", "repo/sub/deep/back": "../../sub",
	} {
		if err := os.Symlink(target, filepath.Join(tmp, link)); err != nil {
			f.Fatal(err)
		}
	}
	for _, s := range []string{"a.txt", "../x", "sub/../a", "out/x", "in/x", "sub/up/x", "abs", "loop/x",
		".git/config", "/etc/passwd", root + "/a", "sub/deep/back/x", "", ".", "--output=x", "-rf"} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, p string, fromSub bool) {
		base := root
		if fromSub {
			base = filepath.Join(root, "sub")
		}
		rel, err := repoPath(root, base, p)
		if err != nil {
			return
		}
		if rel == "." {
			return
		}
		if filepath.IsAbs(rel) || rel == ".." || strings.HasPrefix(rel, "../") || strings.Contains(rel, "/../") ||
			rel == ".git" || strings.HasPrefix(rel, ".git/") {
			t.Fatalf("repoPath(%q) accepted %q", p, rel)
		}
		dir, err := resolveExisting(filepath.Dir(filepath.Join(root, rel)))
		if err != nil {
			t.Fatalf("repoPath(%q) = %q, whose directory does not resolve: %v", p, rel, err)
		}
		if _, ok := inside(root, dir); !ok && dir != root {
			t.Fatalf("repoPath(%q) = %q, whose directory resolves to %s", p, rel, dir)
		}
		if real, err := filepath.EvalSymlinks(filepath.Join(root, rel)); err == nil {
			if _, ok := inside(root, real); !ok && real != root {
				t.Fatalf("repoPath(%q) = %q, which resolves to %s", p, rel, real)
			}
		}
	})
}
