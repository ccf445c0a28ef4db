package toolrun

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHeadStateStaysInGitDir checks that the ref a HEAD file names (text
// a tool can write) is read inside the git directory only: a link planted
// under refs/ (which the guard does not keep) must not lead the read, whose
// content goes into an event, to a file outside.
func TestHeadStateStaysInGitDir(t *testing.T) {
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret"), []byte("TOPSECRET\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		head  string
		setup func(t *testing.T, gd string)
	}{
		{"folder of refs linked out", "ref: refs/heads/out/secret", func(t *testing.T, gd string) {
			if err := os.Symlink(outside, filepath.Join(gd, "refs", "heads", "out")); err != nil {
				t.Fatal(err)
			}
		}},
		{"refs folder linked out", "ref: refs/secret", func(t *testing.T, gd string) {
			if err := os.RemoveAll(filepath.Join(gd, "refs")); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(outside, filepath.Join(gd, "refs")); err != nil {
				t.Fatal(err)
			}
		}},
		{"ref itself linked out", "ref: refs/heads/main", func(t *testing.T, gd string) {
			if err := os.Symlink(filepath.Join(outside, "secret"), filepath.Join(gd, "refs", "heads", "main")); err != nil {
				t.Fatal(err)
			}
		}},
		{"ref with ..", "ref: refs/../../../" + "x", func(*testing.T, string) {}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			gd := filepath.Join(t.TempDir(), ".git")
			if err := os.MkdirAll(filepath.Join(gd, "refs", "heads"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(gd, "HEAD"), []byte(tc.head+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			tc.setup(t, gd)
			if got := headState(gd); strings.Contains(got, "TOPSECRET") {
				t.Errorf("headState = %q: read a file outside the git directory", got)
			}
		})
	}
}

// TestHeadStateReadsOwnRef checks that a ref of the git directory itself
// is still read.
func TestHeadStateReadsOwnRef(t *testing.T) {
	gd := filepath.Join(t.TempDir(), ".git")
	if err := os.MkdirAll(filepath.Join(gd, "refs", "heads"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(gd, "HEAD"), []byte("ref: refs/heads/main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sha := strings.Repeat("a", 40)
	if err := os.WriteFile(filepath.Join(gd, "refs", "heads", "main"), []byte(sha+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, want := headState(gd), "ref: refs/heads/main "+sha; got != want {
		t.Errorf("headState = %q, want %q", got, want)
	}
}
